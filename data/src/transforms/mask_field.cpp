// MaskField$Key / MaskField$Value: replaces fields with their type's empty value (0, false, "",
// an empty array or map, the epoch) or a configured replacement, like Connect's MaskField.
#include <fmt/format.h>

#include <charconv>
#include <cstdlib>
#include <set>

#include "builtin_transforms.h"
#include "transform_support.h"

namespace ksink::detail {
namespace {

using Type = Schema::Type;

constexpr std::string_view kPurpose = "mask fields";

[[noreturn]] void notMaskable(std::string_view what, bool with_replacement) {
  throw ConversionError(fmt::format("Cannot mask value of type {}{}", what,
                                    with_replacement ? " with custom replacement." : ""));
}

[[noreturn]] void notANumber(const std::string& replacement) {
  throw ConversionError(
      fmt::format("Unable to convert {} (java.lang.String) to number", replacement));
}

double replacementFloating(const std::string& text) {
  if (text.empty() || text.find_first_not_of("0123456789.eE+-") != std::string::npos)
    notANumber(text);
  char* end = nullptr;
  const double d = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) notANumber(text);
  return d;
}

// Values.convertToLong of a string: `new BigDecimal(text).longValue()`, the fraction dropped.
int64_t replacementInteger(const std::string& text) {
  int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc() && ptr == text.data() + text.size()) return v;
  return static_cast<int64_t>(replacementFloating(text));
}

class MaskField : public FieldTransform<MaskField> {
 public:
  using FieldTransform::FieldTransform;

  static ConfigDef definition() {
    return ConfigDef()
        .define("fields", ConfigDef::Type::kList, std::nullopt, ConfigDef::Importance::kHigh,
                "Names of fields to mask.", nonEmptyList())
        .define("replacement", ConfigDef::Type::kString, "", ConfigDef::Importance::kLow,
                "Custom value replacement, that will be applied to all 'fields' values (numeric "
                "or non-empty string values only).",
                nonEmptyString())
        .include(replaceNullWithDefaultDef());
  }

  void configureFields(const Config& config) override {
    const auto fields = config.getList("fields");
    fields_ = std::set<std::string>(fields.begin(), fields.end());
    replacement_.reset();
    if (config.values().contains("replacement")) replacement_ = config.getString("replacement");
  }

  std::optional<ConnectRecord> apply(ConnectRecord record) override {
    auto& operand = detail::operand(record, key_);
    if (!operand.schema) {
      Value::Object out = requireMap(operand.value, kPurpose);
      for (const auto& field : fields_) {
        const Value* v = lastEntry(out, field);
        putEntry(out, field, v ? maskedSchemaless(*v) : Value());
      }
      operand.value = Value::object(std::move(out));
      return record;
    }
    const auto& schema = requireStruct(operand, kPurpose);
    auto out = structEntries(
        schema, operand.value.asObject(), replace_null_, [&](const Schema::Field& f, Value v) {
          return fields_.contains(f.name) ? masked(*f.schema, v) : std::move(v);
        });
    // The schema does not change: masks keep each field's type.
    operand.value = Value::object(std::move(out));
    return record;
  }

 private:
  Value maskedSchemaless(const Value& value) const {
    const bool custom = replacement_.has_value();
    switch (value.kind()) {
      case Value::Kind::kNull:
        return Value();
      case Value::Kind::kBoolean:
        if (custom) notMaskable("boolean", true);
        return Value::boolean(false);
      case Value::Kind::kInt:
        return Value::integer(custom ? replacementInteger(*replacement_) : 0);
      case Value::Kind::kDouble:
        return Value::floating(custom ? replacementFloating(*replacement_) : 0.0);
      case Value::Kind::kString:
        return Value::string(custom ? *replacement_ : "");
      case Value::Kind::kBytes:
        notMaskable("bytes", custom);
      case Value::Kind::kArray:
        if (custom) notMaskable("array", true);
        return Value::array({});
      case Value::Kind::kObject:
        if (custom) notMaskable("map", true);
        return Value::object({});
    }
    return Value();
  }

  Value masked(const Schema& schema, const Value& value) const {
    if (value.isNull()) return Value();
    const bool custom = replacement_.has_value();
    switch (schema.connectLogical()) {
      case Schema::Logical::kDecimal: {
        const int32_t scale = schema.decimalScale();
        if (!custom) return Value::bytes(std::string(1, '\0'));
        // BigDecimal keeps trailing zeros ("123.0"); the schema's scale decides the digits.
        std::string text = *replacement_;
        if (text.find('.') != std::string::npos && text.find_first_of("eE") == std::string::npos) {
          while (text.back() == '0') text.pop_back();
          if (text.back() == '.') text.pop_back();
        }
        auto unscaled = Value::decimalFromString(text, scale);
        if (!unscaled)
          throw ConversionError(
              fmt::format("Unable to convert {} to a decimal of scale {}", *replacement_, scale));
        return Value::bytes(std::move(*unscaled));
      }
      case Schema::Logical::kDate:
      case Schema::Logical::kTime:
      case Schema::Logical::kTimestamp:
        if (custom) notMaskable(format_as(schema), true);
        return Value::integer(0);
      default:  // kNone: connectLogical() gives nothing else
        break;
    }
    switch (schema.type) {
      case Type::kInt8:
      case Type::kInt16:
      case Type::kInt32:
      case Type::kInt64:
        return Value::integer(custom ? javaNarrow(replacementInteger(*replacement_), schema.type)
                                     : 0);
      case Type::kFloat32:
        return Value::floating(
            custom ? static_cast<double>(static_cast<float>(replacementFloating(*replacement_)))
                   : 0.0);
      case Type::kFloat64:
        return Value::floating(custom ? replacementFloating(*replacement_) : 0.0);
      case Type::kBoolean:
        if (custom) notMaskable("boolean", true);
        return Value::boolean(false);
      case Type::kString:
        return Value::string(custom ? *replacement_ : "");
      case Type::kArray:
        if (custom) notMaskable("array", true);
        return Value::array({});
      case Type::kMap:
        if (custom) notMaskable("map", true);
        // A map keeps its representation: an object for string keys, else [key, value] pairs.
        return value.kind() == Value::Kind::kObject ? Value::object({}) : Value::array({});
      case Type::kBytes:
      case Type::kStruct:
        notMaskable(format_as(schema), custom);
    }
    return Value();
  }

  std::set<std::string> fields_;
  std::optional<std::string> replacement_;
};

}  // namespace

void registerMaskField(TransformationRegistry& registry) {
  registerKeyValueTransform<MaskField>(registry, "MaskField");
}

}  // namespace ksink::detail
