// HoistField$Key / HoistField$Value: wraps the key or value in a struct (or map) of one field,
// like Connect's HoistField.
#include "builtin_transforms.h"
#include "transform_support.h"

namespace ksink::detail {
namespace {

class HoistField : public FieldTransform<HoistField> {
 public:
  using FieldTransform::FieldTransform;

  static ConfigDef definition() {
    return ConfigDef().define(
        "field", ConfigDef::Type::kString, std::nullopt, ConfigDef::Importance::kMedium,
        "Field name for the single field that will be created in the resulting Struct or "
        "Map.");
  }

  void configureFields(const Config& config) override { field_ = config.getString("field"); }

  std::optional<ConnectRecord> apply(ConnectRecord record) override {
    auto& operand = detail::operand(record, key_);
    Value::Object wrapped;
    wrapped.emplace_back(field_, std::move(operand.value));
    if (operand.schema)
      operand.schema = cache_.get(operand.schema, [&](const Schema&) {
        return structSchema("", {{field_, operand.schema}});
      });
    operand.value = Value::object(std::move(wrapped));
    return record;
  }

 private:
  std::string field_;
};

}  // namespace

void registerHoistField(TransformationRegistry& registry) {
  registerKeyValueTransform<HoistField>(registry, "HoistField");
}

}  // namespace ksink::detail
