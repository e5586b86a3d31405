#include "json_converter.h"

#include "connect_json_writer.h"
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
  // The head goes with the cache, so one schema text never has two objects.
  if (schemas_.size() >= 1024) {
    schemas_.clear();
    head_.clear();
    head_schema_.reset();
  }
  schemas_.emplace(std::string(raw), schema);
  return schema;
}

std::optional<std::string> JsonConverter::fromConnectData(std::string_view,
                                                          const SchemaAndValue& data) {
  if (!data.schema && data.value.isNull()) return std::nullopt;
  std::string out;
  if (!schemas_enable_) {
    appendConnectJson(out, data.schema.get(), data.value);
    return out;
  }
  // Records of one task mostly share one schema object: its text is written once.
  if (!written_schema_text_ || data.schema != written_schema_) {
    std::string text = "{\"schema\":";
    if (data.schema)
      appendConnectSchemaJson(text, *data.schema);
    else
      text += "null";
    text += ",\"payload\":";
    written_schema_ = data.schema;
    written_schema_text_ = std::move(text);
  }
  const auto& head = *written_schema_text_;
  out.reserve(head.size() + written_size_hint_);
  out += head;
  appendConnectJson(out, data.schema.get(), data.value);
  out += '}';
  written_size_hint_ = out.size() - head.size() + 8;
  return out;
}

SchemaAndValue JsonConverter::toConnectData(std::string_view topic,
                                            std::optional<std::string_view> data) {
  (void)topic;
  if (!data) return {nullptr, Value()};
  if (!schemas_enable_) {
    return {nullptr, parseWrapped(parser_, buffer_, *data,
                                  [](od::value v) { return convertSchemaless(v, Path{}); })};
  }
  bool head_refused = false;
  if (head_schema_ && data->starts_with(head_)) {
    if (auto converted = convertAfterHead(*data)) return std::move(*converted);
    head_refused = true;
  }
  return convertEnvelope(*data, head_refused);
}

std::optional<SchemaAndValue> JsonConverter::convertAfterHead(std::string_view data) {
  // What follows the head must be the payload and the envelope's closing brace, nothing else.
  std::string_view payload = data.substr(head_.size());
  const size_t last = payload.find_last_not_of(" \t\n\r");
  if (last == std::string_view::npos || payload[last] != '}') return std::nullopt;
  payload = payload.substr(0, last);
  try {
    json::checkDepth(data);  // the whole record nests as deep as the full parse would see
    const Path payload_path{nullptr, "payload"};
    Value value = json::parseWrappedDepthChecked(parser_, buffer_, payload, [&](od::value v) {
      return convertWithSchema(v, *head_schema_, payload_path);
    });
    return SchemaAndValue{head_schema_, std::move(value)};
  } catch (const ConversionError&) {
    return std::nullopt;  // the full parse says what is wrong, and where
  }
}

SchemaAndValue JsonConverter::convertEnvelope(std::string_view data, bool head_refused) {
  size_t head_size = std::string_view::npos;  // set when the schema comes before the payload
  auto converted = parseWrapped(parser_, buffer_, data, [&](od::value v) {
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
    std::string_view raw;
    bool schema_null = false;
    if (schema_value.is_null().get(schema_null) || !schema_null) {
      od::object schema_object;
      if (schema_value.get_object().get(schema_object)) fail(root, "\"schema\" is not an object");
      check(schema_object.raw_json().get(raw), root, "malformed schema");
      schema = cachedSchema(raw);
    }
    od::value payload;
    if (envelope.find_field_unordered("payload").get(payload))
      fail(root, "no \"payload\" field in the schema envelope");
    const Path payload_path{nullptr, "payload"};
    if (!schema) return SchemaAndValue{nullptr, convertSchemaless(payload, payload_path)};
    // The buffer holds "[" + data + "]": offsets in it are one past those in `data`.
    const size_t schema_end = static_cast<size_t>(raw.data() + raw.size() - buffer_.data()) - 1;
    const size_t payload_at =
        static_cast<size_t>(payload.raw_json_token().data() - buffer_.data()) - 1;
    if (schema_end <= payload_at) head_size = payload_at;
    Value value = convertWithSchema(payload, *schema, payload_path);
    return SchemaAndValue{std::move(schema), std::move(value)};
  });
  if (head_size != std::string_view::npos) {
    const std::string_view head = data.substr(0, head_size);
    if (head != head_) {
      head_.assign(head);
      head_schema_ = converted.schema;
    } else if (head_refused) {
      // Records of this shape ({"schema": …, "payload": …, "more": …}) do not suit the shortcut:
      // read them in full until the head changes, rather than twice each.
      head_schema_.reset();
    }
  }
  return converted;
}

}  // namespace ksink
