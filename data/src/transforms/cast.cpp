// Cast$Key / Cast$Value: casts fields, or the whole key or value, to another primitive type with
// Java's conversions, like Connect's Cast.
#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <variant>

#include "builtin_transforms.h"
#include "cast_value.h"
#include "ksink/detail/config_parse.h"
#include "transform_support.h"

namespace ksink::detail {
namespace {

using Type = Schema::Type;

constexpr std::string_view kPurpose = "cast types";
constexpr std::string_view kSupportedOutput =
    "[INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING]";

struct Spec {
  std::map<std::string, Type> fields;
  std::optional<Type> whole;
};

// Connect's parseFieldTypes: `field:type,…` or one `type` for the whole value.
std::variant<Spec, std::string> parseSpec(const std::vector<std::string>& mappings) {
  if (mappings.empty()) return std::string("Must specify at least one field to cast.");
  Spec spec;
  const auto typeOf = [](std::string_view text) -> std::variant<Type, std::string> {
    const auto name = upperCase(trim(text));
    std::optional<Type> type;
    for (const Type t :
         {Type::kInt8, Type::kInt16, Type::kInt32, Type::kInt64, Type::kFloat32, Type::kFloat64,
          Type::kBoolean, Type::kString, Type::kBytes, Type::kArray, Type::kMap, Type::kStruct})
      if (typeUpper(t) == name) type = t;
    if (!type) return fmt::format("Invalid type found in casting spec: {}", trim(text));
    if (*type == Type::kBytes || !Schema::of(*type)->isPrimitive())
      return fmt::format(
          "Cast transformation does not support casting to {}; supported types "
          "are {}",
          name, kSupportedOutput);
    return *type;
  };
  for (const auto& mapping : mappings) {
    const auto parts = javaSplit(mapping, ':');
    if (parts.size() > 2 || parts.empty())
      return fmt::format("Invalid cast mapping: {} (expected field:type or type)", mapping);
    auto type = typeOf(parts.back());
    if (auto* error = std::get_if<std::string>(&type)) return *error;
    if (parts.size() == 1)
      spec.whole = std::get<Type>(type);
    else
      spec.fields.insert_or_assign(std::string(trim(parts[0])), std::get<Type>(type));
  }
  if (spec.whole && mappings.size() > 1)
    return std::string(
        "Cast transformations that specify a type to cast the entire value to may only specify "
        "a single cast in their spec");
  return spec;
}

class Cast : public FieldTransform<Cast> {
 public:
  using FieldTransform::FieldTransform;

  static ConfigDef definition() {
    return ConfigDef()
        .define("spec", ConfigDef::Type::kList, std::nullopt, ConfigDef::Importance::kHigh,
                "List of fields and the type to cast them to of the form field1:type,field2:type "
                "to cast fields of Maps or Structs. A single type to cast the entire value. Valid "
                "types are int8, int16, int32, int64, float32, float64, boolean, and string. Note "
                "that binary fields can only be cast to string.",
                [](std::string_view value) -> std::optional<std::string> {
                  auto spec = parseSpec(splitList(value));
                  if (auto* error = std::get_if<std::string>(&spec)) return *error;
                  return std::nullopt;
                })
        .include(replaceNullWithDefaultDef());
  }

  void configureFields(const Config& config) override {
    auto spec = parseSpec(splitList(config.getString("spec")));
    if (auto* error = std::get_if<std::string>(&spec)) throw configError("spec", *error);
    spec_ = std::get<Spec>(std::move(spec));
  }

  std::optional<ConnectRecord> apply(ConnectRecord record) override {
    auto& operand = detail::operand(record, key_);
    if (operand.value.isNull()) return record;
    if (!operand.schema) {
      if (spec_.whole) {
        operand.value = castValue(nullptr, operand.value, *spec_.whole);
        return record;
      }
      Value::Object out = requireMap(operand.value, kPurpose);
      for (const auto& [field, type] : spec_.fields) {
        const Value* v = lastEntry(out, field);
        putEntry(out, field, v ? castValue(nullptr, *v, type) : Value());
      }
      operand.value = Value::object(std::move(out));
      return record;
    }
    auto updated = cache_.get(operand.schema, [&](const Schema& s) { return castSchema(s); });
    if (spec_.whole) {
      operand = {std::move(updated), castValue(operand.schema.get(), operand.value, *spec_.whole)};
      return record;
    }
    const auto& schema = requireStruct(operand, kPurpose);
    auto out = structEntries(
        schema, operand.value.asObject(), replace_null_, [&](const Schema::Field& f, Value v) {
          auto it = spec_.fields.find(f.name);
          return it == spec_.fields.end() ? std::move(v) : castValue(f.schema.get(), v, it->second);
        });
    operand = {std::move(updated), Value::object(std::move(out))};
    return record;
  }

 private:
  // `source` cast to `type`: optional as it was, its default cast too.
  static std::shared_ptr<const Schema> castTo(const Schema& source, Type type, bool keep_basics) {
    auto out = std::make_shared<Schema>();
    out->type = type;
    out->optional = source.optional;
    // Connect copies name, version, doc and parameters onto a whole-value cast; a logical type's
    // name is not copied since the value no longer has that representation.
    if (keep_basics) {
      if (source.connectLogical() == Schema::Logical::kNone) {
        out->name = source.name;
        out->parameters = source.parameters;
      }
      out->version = source.version;
      out->doc = source.doc;
    }
    if (source.default_value)
      out->default_value =
          std::make_shared<const Value>(castValue(&source, *source.default_value, type));
    if (out->name.empty() && !out->version && out->doc.empty() && out->parameters.empty() &&
        !out->default_value)
      return Schema::of(type, out->optional);
    return out;
  }

  std::shared_ptr<const Schema> castSchema(const Schema& schema) const {
    if (spec_.whole) return castTo(schema, *spec_.whole, true);
    requireStructSchema(schema, kPurpose);
    std::vector<Schema::Field> fields;
    for (const auto& f : schema.fields) {
      auto it = spec_.fields.find(f.name);
      fields.push_back(
          {f.name, it == spec_.fields.end() ? f.schema : castTo(*f.schema, it->second, false)});
    }
    return withFields(schema, std::move(fields));
  }

  Spec spec_;
};

}  // namespace

void registerCast(TransformationRegistry& registry) {
  registerKeyValueTransform<Cast>(registry, "Cast");
}

}  // namespace ksink::detail
