// ValueToKey: replaces the key with a struct (or map) of some of the value's fields, like
// Connect's ValueToKey.
#include <fmt/format.h>

#include "builtin_transforms.h"
#include "transform_support.h"

namespace ksink::detail {
namespace {

constexpr std::string_view kPurpose = "copying fields from value to key";

class ValueToKey : public BuiltinTransform<ValueToKey> {
 public:
  static ConfigDef definition() {
    return ConfigDef()
        .define("fields", ConfigDef::Type::kList, std::nullopt, ConfigDef::Importance::kHigh,
                "Field names on the record value to extract as the record key.", nonEmptyList())
        .include(replaceNullWithDefaultDef());
  }

  void configure(const Config& config) override {
    fields_ = config.getList("fields");
    replace_null_ = config.getBoolean(std::string(kReplaceNullWithDefault));
  }

  std::optional<ConnectRecord> apply(ConnectRecord record) override {
    if (!record.value.schema) {
      const auto& value = requireMap(record.value.value, kPurpose);
      Value::Object key;
      for (const auto& name : fields_) {
        const Value* v = lastEntry(value, name);
        key.emplace_back(name, v ? *v : Value());
      }
      record.key = {nullptr, Value::object(std::move(key))};
      return record;
    }
    const auto& schema = requireStruct(record.value, kPurpose);
    auto key_schema = cache_.get(record.value.schema, [&](const Schema& s) {
      std::vector<Schema::Field> fields;
      for (const auto& name : fields_) {
        const auto* field = s.field(name);
        if (!field) throw ConversionError(fmt::format("Field does not exist: {}", name));
        fields.push_back(*field);
      }
      return structSchema("", std::move(fields));
    });
    const auto& value = record.value.value.asObject();
    Value::Object key;
    key.reserve(fields_.size());
    for (const auto& name : fields_) {
      size_t index = 0;
      while (schema.fields[index].name != name) ++index;  // present: the key schema has it
      key.emplace_back(name, fieldValue(value, index, schema.fields[index], replace_null_));
    }
    record.key = {std::move(key_schema), Value::object(std::move(key))};
    return record;
  }

 private:
  std::vector<std::string> fields_;
  bool replace_null_ = true;
  SchemaCache cache_;
};

}  // namespace

void registerValueToKey(TransformationRegistry& registry) {
  registerTransform<ValueToKey>(registry, "ValueToKey");
}

}  // namespace ksink::detail
