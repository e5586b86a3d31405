// ExtractField$Key / ExtractField$Value: replaces the key or value with one of its fields (a
// nested one with field.syntax.version=V2), like Connect's ExtractField.
#include <fmt/format.h>

#include "builtin_transforms.h"
#include "field_path.h"
#include "transform_support.h"

namespace ksink::detail {
namespace {

constexpr std::string_view kPurpose = "field extraction";

class ExtractField : public FieldTransform<ExtractField> {
 public:
  using FieldTransform::FieldTransform;

  static ConfigDef definition() {
    return ConfigDef()
        .define("field", ConfigDef::Type::kString, std::nullopt, ConfigDef::Importance::kMedium,
                "Field name to extract.")
        .include(replaceNullWithDefaultDef())
        .include(fieldSyntaxVersionDef());
  }

  void configureFields(const Config& config) override {
    field_ = config.getString("field");
    path_.emplace(field_, fieldSyntaxIsV2(config.getString("field.syntax.version")), "field");
  }

  std::optional<ConnectRecord> apply(ConnectRecord record) override {
    auto& operand = detail::operand(record, key_);
    if (!operand.schema) {
      if (!operand.value.isNull()) requireMap(operand.value, kPurpose);
      operand.value = path_->valueFrom(operand.value);
      return record;
    }
    if (!operand.value.isNull()) requireStruct(operand, kPurpose);
    const auto* field = path_->fieldFrom(*operand.schema);
    if (!field) throw ConversionError(fmt::format("Unknown field: {}", field_));
    Value value = operand.value.isNull()
                      ? Value()
                      : path_->valueFrom(*operand.schema, operand.value, replace_null_);
    // The field's own schema object: the same for every record of the input schema.
    operand = {field->schema, std::move(value)};
    return record;
  }

 private:
  std::string field_;
  std::optional<FieldPath> path_;
};

}  // namespace

void registerExtractField(TransformationRegistry& registry) {
  registerKeyValueTransform<ExtractField>(registry, "ExtractField");
}

}  // namespace ksink::detail
