#include "json_converter.h"

#include "json_values.h"

namespace ksink {

using json::check;
using json::convertSchemaless;
using json::convertWithSchema;
using json::fail;
using json::parseWrapped;
using json::Path;
namespace od = simdjson::ondemand;

JsonConverter::JsonConverter(bool schemas_enable) : schemas_enable_(schemas_enable) {}

std::shared_ptr<const Schema> JsonConverter::cachedSchema(std::string_view raw) {
  if (auto it = schemas_.find(raw); it != schemas_.end()) return it->second;
  auto schema = parseSchema(raw);
  // Bounded: a topic whose every record carries a new schema must not grow memory forever.
  if (schemas_.size() >= 1024) schemas_.clear();
  schemas_.emplace(std::string(raw), schema);
  return schema;
}

SchemaAndValue JsonConverter::toConnectData(std::string_view topic,
                                            std::optional<std::string_view> data) {
  (void)topic;
  if (!data) return {nullptr, Value()};
  if (!schemas_enable_) {
    return {nullptr, parseWrapped(parser_, buffer_, *data,
                                  [](od::value v) { return convertSchemaless(v, Path{}); })};
  }
  return parseWrapped(parser_, buffer_, *data, [this](od::value v) {
    const Path root;
    od::object envelope;
    if (v.get_object().get(envelope))
      fail(root,
           "with schemas.enable=true the data must be an object {\"schema\": …, \"payload\": …} "
           "(set schemas.enable=false for plain JSON)");
    od::value schema_value;
    if (envelope.find_field_unordered("schema").get(schema_value))
      fail(root,
           "no \"schema\" field: with schemas.enable=true the data must be an object "
           "{\"schema\": …, \"payload\": …} (set schemas.enable=false for plain JSON)");
    std::shared_ptr<const Schema> schema;
    bool schema_null = false;
    if (schema_value.is_null().get(schema_null) || !schema_null) {
      od::object schema_object;
      if (schema_value.get_object().get(schema_object)) fail(root, "\"schema\" is not an object");
      std::string_view raw;
      check(schema_object.raw_json().get(raw), root, "malformed schema");
      schema = cachedSchema(raw);
    }
    od::value payload;
    if (envelope.find_field_unordered("payload").get(payload))
      fail(root, "no \"payload\" field in the schema envelope");
    const Path payload_path{nullptr, "payload"};
    Value value = schema ? convertWithSchema(payload, *schema, payload_path)
                         : convertSchemaless(payload, payload_path);
    return SchemaAndValue{std::move(schema), std::move(value)};
  });
}

}  // namespace ksink
