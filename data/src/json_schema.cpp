// Connect's schemas in their JSON form (what the envelope's "schema" holds) as Schema objects:
// types, names, parameters, struct fields, array items, map keys and values, defaults (converted
// against the schema they belong to).
#include <fmt/format.h>

#include <charconv>

#include "json_converter.h"
#include "json_values.h"

namespace ksink {
namespace {

namespace dom = simdjson::dom;
using json::check;
using json::convertWithSchema;
using json::fail;
using json::parseWrapped;
using json::Path;
namespace od = simdjson::ondemand;

std::shared_ptr<Schema> schemaFromDom(dom::element e, const Path& path);

void setDefault(Schema& schema, dom::element def, const Path& path) {
  if (def.is_null()) return;
  const std::string text = simdjson::minify(def);
  od::parser parser;
  std::string buffer;
  schema.default_value = std::make_shared<const Value>(parseWrapped(
      parser, buffer, text, [&](od::value v) { return convertWithSchema(v, schema, path); }));
}

// A scale is work: a value's text has at least that many digits. One beyond what any database
// stores makes the record bad, before a value of it is read.
void checkDecimalScale(const Schema& schema, const Path& path) {
  const auto it = schema.parameters.find(std::string(Schema::kScaleParameter));
  if (it == schema.parameters.end()) return;
  int64_t scale = 0;
  const auto& text = it->second;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), scale);
  if (ec != std::errc() || end != text.data() + text.size())
    fail(path, fmt::format("Decimal scale \"{}\" is not a whole number", text));
  if (auto beyond = Value::decimalBeyondBounds(std::nullopt, scale)) fail(path, *beyond);
}

std::shared_ptr<Schema> schemaFromDom(dom::element e, const Path& path) {
  dom::object o;
  if (e.get(o)) fail(path, "a schema must be a JSON object");
  std::string_view type_name;
  if (o["type"].get(type_name)) fail(path, "schema without a \"type\"");
  const auto type = Schema::typeFromName(type_name);
  if (!type) fail(path, fmt::format("unknown schema type \"{}\"", type_name));
  auto schema = std::make_shared<Schema>();
  schema->type = *type;
  bool optional = false;
  if (!o["optional"].get(optional)) schema->optional = optional;
  std::string_view text;
  if (!o["name"].get(text)) schema->name = std::string(text);
  if (!o["doc"].get(text)) schema->doc = std::string(text);
  int64_t version = 0;
  if (!o["version"].get(version)) schema->version = static_cast<int32_t>(version);
  dom::object params;
  if (!o["parameters"].get(params)) {
    for (auto [key, value] : params) {
      std::string_view s;
      schema->parameters[std::string(key)] =
          value.get(s) ? simdjson::minify(value) : std::string(s);
    }
  }
  if (schema->logical() == Schema::Logical::kDecimal) checkDecimalScale(*schema, path);
  if (*type == Schema::Type::kStruct) {
    dom::array fields;
    if (o["fields"].get(fields)) fail(path, "struct schema without \"fields\"");
    for (dom::element f : fields) {
      std::string_view field_name;
      if (f["field"].get(field_name)) fail(path, "struct field without a \"field\" name");
      const Path child{&path, field_name};
      schema->fields.push_back({std::string(field_name), schemaFromDom(f, child)});
    }
  }
  dom::element sub;
  if (*type == Schema::Type::kArray) {
    if (o["items"].get(sub)) fail(path, "array schema without \"items\"");
    schema->value_schema = schemaFromDom(sub, path);
  }
  if (*type == Schema::Type::kMap) {
    if (o["keys"].get(sub)) fail(path, "map schema without \"keys\"");
    schema->key_schema = schemaFromDom(sub, path);
    if (o["values"].get(sub)) fail(path, "map schema without \"values\"");
    schema->value_schema = schemaFromDom(sub, path);
  }
  if (!o["default"].get(sub)) setDefault(*schema, sub, path);
  return schema;
}

}  // namespace

std::shared_ptr<const Schema> JsonConverter::parseSchema(std::string_view json) {
  dom::parser parser;
  dom::element root;
  const Path where{nullptr, "schema"};
  check(parser.parse(simdjson::padded_string(json)).get(root), where, "schema is not valid JSON");
  return schemaFromDom(root, where);
}

}  // namespace ksink
