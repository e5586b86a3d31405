// InsertField$Key / InsertField$Value: adds the record's topic, partition, offset, timestamp or a
// static string as fields of a struct or map, like Connect's InsertField.
#include <fmt/format.h>

#include <algorithm>

#include "builtin_transforms.h"
#include "transform_support.h"

namespace ksink::detail {
namespace {

constexpr std::string_view kPurpose = "field insertion";

// A field to insert: `name!` makes it required in the schema, `name?` or `name` optional.
struct InsertionSpec {
  std::string name;
  bool optional = true;

  static std::optional<InsertionSpec> parse(const std::string& spec) {
    if (spec.empty()) return std::nullopt;
    if (spec.ends_with('?')) return InsertionSpec{spec.substr(0, spec.size() - 1), true};
    if (spec.ends_with('!')) return InsertionSpec{spec.substr(0, spec.size() - 1), false};
    return InsertionSpec{spec, true};
  }
};

// The doc of a key naming a field to insert.
std::string fieldDoc(std::string_view what) {
  return std::string(what) +
         " Suffix with ! to make this a required field, or ? to keep it optional (the default).";
}

class InsertField : public FieldTransform<InsertField> {
 public:
  using FieldTransform::FieldTransform;

  static ConfigDef definition() {
    return ConfigDef()
        .define("topic.field", ConfigDef::Type::kString, "", ConfigDef::Importance::kMedium,
                fieldDoc("Field name for Kafka topic."))
        .define("partition.field", ConfigDef::Type::kString, "", ConfigDef::Importance::kMedium,
                fieldDoc("Field name for Kafka partition."))
        .define("offset.field", ConfigDef::Type::kString, "", ConfigDef::Importance::kMedium,
                fieldDoc("Field name for Kafka offset (the offset the record was consumed at)."))
        .define("timestamp.field", ConfigDef::Type::kString, "", ConfigDef::Importance::kMedium,
                fieldDoc("Field name for record timestamp."))
        .define("static.field", ConfigDef::Type::kString, "", ConfigDef::Importance::kMedium,
                fieldDoc("Field name for static data field."))
        .define("static.value", ConfigDef::Type::kString, "", ConfigDef::Importance::kMedium,
                "Static field value, if field name configured.")
        .include(replaceNullWithDefaultDef());
  }

  void configureFields(const Config& config) override {
    topic_ = InsertionSpec::parse(config.getString("topic.field"));
    partition_ = InsertionSpec::parse(config.getString("partition.field"));
    offset_ = InsertionSpec::parse(config.getString("offset.field"));
    timestamp_ = InsertionSpec::parse(config.getString("timestamp.field"));
    static_ = InsertionSpec::parse(config.getString("static.field"));
    static_value_ = config.getString("static.value");
    if (!topic_ && !partition_ && !offset_ && !timestamp_ && !static_)
      throw configError("topic.field",
                        "No field insertion configured: set at least one of topic.field, "
                        "partition.field, offset.field, timestamp.field, static.field");
    if (static_ && !config.values().contains("static.value"))
      throw configError("static.value",
                        fmt::format("No value specified for static field: {}", static_->name));
  }

  std::optional<ConnectRecord> apply(ConnectRecord record) override {
    auto& operand = detail::operand(record, key_);
    if (operand.value.isNull()) return record;
    if (!operand.schema) {
      Value::Object out = requireMap(operand.value, kPurpose);
      for (auto& [name, value] : inserted(record, false)) putEntry(out, name, std::move(value));
      operand.value = Value::object(std::move(out));
      return record;
    }
    const auto& schema = requireStruct(operand, kPurpose);
    auto updated = cache_.get(operand.schema, [&](const Schema& s) { return updatedSchema(s); });
    const auto& in = operand.value.asObject();
    Value::Object out;
    out.reserve(updated->fields.size());
    for (size_t i = 0; i < schema.fields.size(); ++i)
      out.emplace_back(schema.fields[i].name, fieldValue(in, i, schema.fields[i], replace_null_));
    for (auto& entry : inserted(record, true)) out.push_back(std::move(entry));
    operand = {std::move(updated), Value::object(std::move(out))};
    return record;
  }

 private:
  // The inserted entries, in schema order; with a schema every configured field gets an entry.
  Value::Object inserted(const ConnectRecord& record, bool with_schema) const {
    Value::Object out;
    if (topic_) out.emplace_back(topic_->name, Value::string(record.topic));
    if (partition_)
      out.emplace_back(partition_->name,
                       record.partition ? Value::integer(*record.partition) : Value());
    if (offset_) {
      if (!record.original)
        throw ConversionError(
            fmt::format("Only records read from Kafka supported for [{}]: no offset", kPurpose));
      out.emplace_back(offset_->name, Value::integer(record.original->offset()));
    }
    if (timestamp_ && (record.timestamp || with_schema))
      out.emplace_back(timestamp_->name,
                       record.timestamp ? Value::integer(*record.timestamp) : Value());
    if (static_) out.emplace_back(static_->name, Value::string(static_value_));
    return out;
  }

  std::shared_ptr<const Schema> updatedSchema(const Schema& schema) const {
    auto fields = schema.fields;
    const auto add = [&](const std::optional<InsertionSpec>& spec,
                         std::shared_ptr<const Schema> field_schema) {
      if (!spec) return;
      if (std::any_of(fields.begin(), fields.end(),
                      [&](const Schema::Field& f) { return f.name == spec->name; }))
        throw ConversionError(fmt::format(
            "Cannot insert field '{}' for [{}]: the struct already has a field of that name",
            spec->name, kPurpose));
      fields.push_back({spec->name, std::move(field_schema)});
    };
    const auto of = [](Schema::Type type, const std::optional<InsertionSpec>& spec) {
      return Schema::of(type, spec && spec->optional);
    };
    add(topic_, of(Schema::Type::kString, topic_));
    add(partition_, of(Schema::Type::kInt32, partition_));
    add(offset_, of(Schema::Type::kInt64, offset_));
    add(timestamp_, logicalSchema(Schema::Logical::kTimestamp, timestamp_ && timestamp_->optional));
    add(static_, of(Schema::Type::kString, static_));
    return withFields(schema, std::move(fields));
  }

  std::optional<InsertionSpec> topic_, partition_, offset_, timestamp_, static_;
  std::string static_value_;
};

}  // namespace

void registerInsertField(TransformationRegistry& registry) {
  registerKeyValueTransform<InsertField>(registry, "InsertField");
}

}  // namespace ksink::detail
