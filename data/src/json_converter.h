// JsonConverter: Kafka Connect's org.apache.kafka.connect.json.JsonConverter, both ways. Writing
// (fromConnectData) gives Connect's bytes: connect_json_writer.h.
//
// schemas.enable=true: the data is Connect's envelope {"schema": {...}, "payload": ...} and the
// payload is converted against the schema (logical types Decimal — base64 bytes as Connect writes
// them, or a JSON number —, Date, Time, Timestamp; defaults; optional fields). Identical schema
// text is parsed once: records with the same schema share one Schema object. A record that starts
// with the same bytes, up to its payload, as the last envelope read in full ({"schema": …,
// "payload": ) has only its payload parsed; whatever that shortcut does not accept is read in full.
// schemas.enable=false: any JSON document, schemaless (objects keep their field order).
//
// Parsing uses simdjson's On Demand API over a private padded copy of the bytes. Every malformed or
// mismatching input throws ConversionError saying what and where. Not thread-safe (one per task).
#pragma once

#include <simdjson.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "ksink/converter.h"

namespace ksink {

class JsonConverter final : public Converter {
 public:
  explicit JsonConverter(bool schemas_enable);

  SchemaAndValue toConnectData(std::string_view topic,
                               std::optional<std::string_view> data) override;
  // schemas.enable=true: {"schema":<the schema's JSON form, or null>,"payload":<the value>};
  // false: the value alone. A null schema with a null value is a null (nullopt), as in Connect.
  std::optional<std::string> fromConnectData(std::string_view topic,
                                             const SchemaAndValue& data) override;

  // Parses one Connect schema in its JSON form (what the envelope's "schema" holds).
  static std::shared_ptr<const Schema> parseSchema(std::string_view json);

 private:
  std::shared_ptr<const Schema> cachedSchema(std::string_view raw);
  // `head_refused`: the record starts with head_ but convertAfterHead() did not take it.
  SchemaAndValue convertEnvelope(std::string_view data, bool head_refused);
  // The payload of a record that starts with head_; nullopt when it is not just that.
  std::optional<SchemaAndValue> convertAfterHead(std::string_view data);

  struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  bool schemas_enable_;
  simdjson::ondemand::parser parser_;
  std::string buffer_;  // "[" + data + "]" + simdjson padding
  std::string head_;    // the last full envelope's bytes before its payload
  // Null: no shortcut — none yet, or records with head_ did not suit it (until the head changes).
  std::shared_ptr<const Schema> head_schema_;
  std::unordered_map<std::string, std::shared_ptr<const Schema>, StringHash, std::equal_to<>>
      schemas_;
  // Writing: the envelope's text up to the payload for the last schema written (kept alive, so
  // the pointer cannot name another schema; schemas are immutable once built, ksink/schema.h),
  // and the last payload's size, to reserve.
  std::shared_ptr<const Schema> written_schema_;
  std::optional<std::string> written_schema_text_;
  size_t written_size_hint_ = 0;
};

}  // namespace ksink
