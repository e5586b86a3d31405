// TimestampConverter$Key / TimestampConverter$Value: converts a timestamp field, or the whole key
// or value, between string (a SimpleDateFormat pattern), unix (epoch at unix.precision) and
// Connect's Date, Time and Timestamp, like Connect's TimestampConverter (UTC throughout).
#include <fmt/format.h>

#include "builtin_transforms.h"
#include "date_format.h"
#include "ksink/civil_date.h"
#include "ksink/detail/config_parse.h"
#include "transform_support.h"

namespace ksink::detail {
namespace {

constexpr std::string_view kPurpose = "converting timestamp formats";
constexpr int64_t kMillisPerDay = 86400000;

enum class Kind { kString, kUnix, kDate, kTime, kTimestamp };
enum class Precision { kSeconds, kMillis, kMicros, kNanos };

Kind kindOf(std::string_view name) {
  if (name == "string") return Kind::kString;
  if (name == "unix") return Kind::kUnix;
  if (name == "Date") return Kind::kDate;
  if (name == "Time") return Kind::kTime;
  return Kind::kTimestamp;
}

class TimestampConverter : public FieldTransform<TimestampConverter> {
 public:
  using FieldTransform::FieldTransform;

  static ConfigDef definition() {
    return ConfigDef()
        .define("field", ConfigDef::Type::kString, "", ConfigDef::Importance::kHigh,
                "The field containing the timestamp, or empty if the entire value is a timestamp")
        .define("target.type", ConfigDef::Type::kString, std::nullopt, ConfigDef::Importance::kHigh,
                "The desired timestamp representation: string, unix, Date, Time, or Timestamp",
                ConfigDef::oneOf({"string", "unix", "Date", "Time", "Timestamp"}))
        .define("format", ConfigDef::Type::kString, "", ConfigDef::Importance::kMedium,
                "A SimpleDateFormat-compatible format for the timestamp (the letters y M d H m s S "
                "and quoted text, UTC). Used to generate the output when type=string or used to "
                "parse the input if the input is a string.")
        .define("unix.precision", ConfigDef::Type::kString, "milliseconds",
                ConfigDef::Importance::kLow,
                "The desired Unix precision for the timestamp: seconds, milliseconds, "
                "microseconds, or nanoseconds. Used to generate the output when type=unix or used "
                "to parse the input if the input is a Long.",
                ConfigDef::oneOf({"nanoseconds", "microseconds", "milliseconds", "seconds"}))
        .include(replaceNullWithDefaultDef());
  }

  void configureFields(const Config& config) override {
    field_ = config.getString("field");
    target_ = kindOf(trim(config.getString("target.type")));
    // The text outlives its trimmed view (a view of the temporary read past its end).
    const auto precision_text = config.getString("unix.precision");
    const auto precision = trim(precision_text);
    precision_ = precision == "seconds"        ? Precision::kSeconds
                 : precision == "microseconds" ? Precision::kMicros
                 : precision == "nanoseconds"  ? Precision::kNanos
                                               : Precision::kMillis;
    const auto pattern = config.getString("format");
    format_.reset();
    if (trim(pattern).empty()) {
      if (target_ == Kind::kString)
        throw configError("format",
                          "TimestampConverter requires format option to be specified when using "
                          "string timestamps");
      return;
    }
    std::string error;
    format_ = DateFormat::compile(pattern, &error);
    if (!format_) throw configError("format", error);
  }

  std::optional<ConnectRecord> apply(ConnectRecord record) override {
    auto& operand = detail::operand(record, key_);
    if (!operand.schema) {
      if (operand.value.isNull() || field_.empty()) {
        operand.value = convert(operand.value, std::nullopt);
        return record;
      }
      Value::Object out = requireMap(operand.value, kPurpose);
      const Value* v = operand.value.find(field_);
      putEntry(out, field_, v ? convert(*v, std::nullopt) : Value());
      operand.value = Value::object(std::move(out));
      return record;
    }
    if (field_.empty()) {
      const Kind from = kindOfSchema(*operand.schema);
      operand = {targetSchema(operand.schema->optional), convert(operand.value, from)};
      return record;
    }
    if (!operand.value.isNull()) requireStruct(operand, kPurpose);
    auto updated = cache_.get(operand.schema, [&](const Schema& s) {
      requireStructSchema(s, kPurpose);
      std::vector<Schema::Field> fields;
      for (const auto& f : s.fields)
        fields.push_back({f.name, f.name == field_ ? targetSchema(f.schema->optional) : f.schema});
      auto out = withFields(s, std::move(fields));
      if (s.default_value)
        out->default_value = std::make_shared<const Value>(convertStruct(s, *s.default_value));
      return out;
    });
    operand = {std::move(updated), convertStruct(*operand.schema, operand.value)};
    return record;
  }

 private:
  std::shared_ptr<const Schema> targetSchema(bool optional) const {
    switch (target_) {
      case Kind::kString:
        return Schema::of(Schema::Type::kString, optional);
      case Kind::kUnix:
        return Schema::of(Schema::Type::kInt64, optional);
      case Kind::kDate:
        return logicalSchema(Schema::Logical::kDate, optional);
      case Kind::kTime:
        return logicalSchema(Schema::Logical::kTime, optional);
      case Kind::kTimestamp:
        break;
    }
    return logicalSchema(Schema::Logical::kTimestamp, optional);
  }

  static Kind kindOfSchema(const Schema& schema) {
    switch (schema.connectLogical()) {
      case Schema::Logical::kTimestamp:
        return Kind::kTimestamp;
      case Schema::Logical::kDate:
        return Kind::kDate;
      case Schema::Logical::kTime:
        return Kind::kTime;
      default:
        break;
    }
    if (schema.type == Schema::Type::kString) return Kind::kString;
    if (schema.type == Schema::Type::kInt64) return Kind::kUnix;
    throw ConversionError(fmt::format(
        "Schema {} does not correspond to a known timestamp type format", format_as(schema)));
  }

  Value convertStruct(const Schema& schema, const Value& value) const {
    if (value.isNull()) return Value();
    return Value::object(structEntries(
        schema, value.asObject(), replace_null_, [&](const Schema::Field& f, Value v) {
          return f.name == field_ ? convert(v, kindOfSchema(*f.schema)) : std::move(v);
        }));
  }

  // `from` nullopt: schemaless, inferred from the value (a number is unix, text is string).
  Value convert(const Value& value, std::optional<Kind> from) const {
    if (value.isNull()) return Value();
    if (!from) {
      if (value.kind() == Value::Kind::kInt)
        from = Kind::kUnix;
      else if (value.kind() == Value::Kind::kString)
        from = Kind::kString;
      else
        throw ConversionError(fmt::format(
            "TimestampConverter does not support {} values as timestamps", value.toJson()));
    }
    return toTarget(toMillis(value, *from));
  }

  int64_t toMillis(const Value& value, Kind from) const {
    if (from == Kind::kString) {
      if (value.kind() != Value::Kind::kString)
        throw ConversionError("Expected string timestamp to be a String, but found " +
                              value.toJson());
      if (!format_)
        throw ConversionError("TimestampConverter needs format to parse the string timestamp " +
                              value.toJson());
      auto millis = format_->parse(value.asString());
      if (!millis)
        throw ConversionError(
            fmt::format("Could not parse timestamp: value ({}) does not match pattern ({})",
                        value.asString(), format_->pattern()));
      return *millis;
    }
    if (value.kind() != Value::Kind::kInt)
      throw ConversionError(fmt::format("Expected a {} timestamp to be an integer, but found {}",
                                        from == Kind::kUnix ? "Unix" : "logical", value.toJson()));
    const int64_t v = value.asInt();
    switch (from) {
      case Kind::kUnix:
        switch (precision_) {
          case Precision::kSeconds:
            return v * 1000;
          case Precision::kMicros:
            return v / 1000;
          case Precision::kNanos:
            return v / 1000000;
          case Precision::kMillis:
            return v;
        }
        return v;
      case Kind::kDate:
        return v * kMillisPerDay;
      default:
        return v;  // Time: milliseconds of the day; Timestamp: since the epoch
    }
  }

  Value toTarget(int64_t millis) const {
    switch (target_) {
      case Kind::kString:
        return Value::string(format_->format(millis));
      case Kind::kUnix:
        switch (precision_) {
          case Precision::kSeconds:
            return Value::integer(millis / 1000);
          case Precision::kMicros:
            return Value::integer(millis * 1000);
          case Precision::kNanos:
            return Value::integer(millis * 1000000);
          case Precision::kMillis:
            break;
        }
        return Value::integer(millis);
      case Kind::kDate:
        return Value::integer(floorDiv(millis, kMillisPerDay));
      case Kind::kTime:
        return Value::integer(millis - floorDiv(millis, kMillisPerDay) * kMillisPerDay);
      case Kind::kTimestamp:
        break;
    }
    return Value::integer(millis);
  }

  std::string field_;
  Kind target_ = Kind::kTimestamp;
  Precision precision_ = Precision::kMillis;
  std::optional<DateFormat> format_;
};

}  // namespace

void registerTimestampConverter(TransformationRegistry& registry) {
  registerKeyValueTransform<TimestampConverter>(registry, "TimestampConverter");
}

}  // namespace ksink::detail
