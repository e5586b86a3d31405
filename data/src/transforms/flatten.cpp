// Flatten$Key / Flatten$Value: lifts the fields of nested structs (or maps) to the top level,
// naming each by its path joined with the delimiter, like Connect's Flatten.
#include <fmt/format.h>

#include "builtin_transforms.h"
#include "transform_support.h"

namespace ksink::detail {
namespace {

constexpr std::string_view kPurpose = "flattening";

class Flatten : public FieldTransform<Flatten> {
 public:
  using FieldTransform::FieldTransform;

  static ConfigDef definition() {
    return ConfigDef().define(
        "delimiter", ConfigDef::Type::kString, ".", ConfigDef::Importance::kMedium,
        "Delimiter to insert between field names from the input record when generating "
        "field names for the output record.");
  }

  void configureFields(const Config& config) override {
    delimiter_ = config.getString("delimiter");
  }

  std::optional<ConnectRecord> apply(ConnectRecord record) override {
    auto& operand = detail::operand(record, key_);
    if (operand.value.isNull()) return record;
    if (!operand.schema) {
      Value::Object out;
      flattenSchemaless(requireMap(operand.value, kPurpose), "", out);
      operand.value = Value::object(std::move(out));
      return record;
    }
    const auto& schema = requireStruct(operand, kPurpose);
    auto updated = cache_.get(operand.schema, [&](const Schema& s) {
      std::vector<Schema::Field> fields;
      flattenSchema(s, "", s.optional, s.default_value.get(), fields);
      return withFields(s, std::move(fields));
    });
    Value::Object out;
    out.reserve(updated->fields.size());
    flattenValue(schema, &operand.value, "", out);
    operand = {std::move(updated), Value::object(std::move(out))};
    return record;
  }

 private:
  std::string name(const std::string& prefix, const std::string& field) const {
    return prefix.empty() ? field : prefix + delimiter_ + field;
  }

  void flattenSchemaless(const Value::Object& object, const std::string& prefix,
                         Value::Object& out) const {
    for (const auto& [field, value] : object) {
      const auto n = name(prefix, field);
      if (value.kind() == Value::Kind::kObject)
        flattenSchemaless(value.asObject(), n, out);
      else
        putEntry(out, n, value);
    }
  }

  // A nested field is optional when it or any struct above it is; its default is its own or the
  // one the default of a struct above gives it.
  void flattenSchema(const Schema& schema, const std::string& prefix, bool optional,
                     const Value* parent_default, std::vector<Schema::Field>& out) const {
    for (size_t i = 0; i < schema.fields.size(); ++i) {
      const auto& f = schema.fields[i];
      const auto n = name(prefix, f.name);
      const bool field_optional = optional || f.schema->optional;
      std::shared_ptr<const Value> def = f.schema->default_value;
      if (!def && parent_default && parent_default->kind() == Value::Kind::kObject) {
        auto v = fieldValue(parent_default->asObject(), i, f, false);
        if (!v.isNull()) def = std::make_shared<const Value>(std::move(v));
      }
      switch (f.schema->type) {
        case Schema::Type::kStruct:
          flattenSchema(*f.schema, n, field_optional, def.get(), out);
          break;
        case Schema::Type::kMap:
          throw ConversionError(fmt::format(
              "Flatten transformation does not support MAP for record with schemas (for field "
              "{}).",
              n));
        default:
          if (field_optional == f.schema->optional && def == f.schema->default_value) {
            out.push_back({n, f.schema});
          } else {
            auto leaf = std::make_shared<Schema>(*f.schema);
            leaf->optional = field_optional;
            leaf->default_value = std::move(def);
            out.push_back({n, std::move(leaf)});
          }
      }
    }
  }

  // `value` null: a null nested struct, whose fields all come out null.
  void flattenValue(const Schema& schema, const Value* value, const std::string& prefix,
                    Value::Object& out) const {
    const bool present = value && value->kind() == Value::Kind::kObject;
    for (size_t i = 0; i < schema.fields.size(); ++i) {
      const auto& f = schema.fields[i];
      const auto n = name(prefix, f.name);
      Value v = present ? fieldValue(value->asObject(), i, f, true) : Value();
      if (f.schema->type == Schema::Type::kStruct)
        flattenValue(*f.schema, v.isNull() ? nullptr : &v, n, out);
      else
        out.emplace_back(n, std::move(v));
    }
  }

  std::string delimiter_ = ".";
};

}  // namespace

void registerFlatten(TransformationRegistry& registry) {
  registerKeyValueTransform<Flatten>(registry, "Flatten");
}

}  // namespace ksink::detail
