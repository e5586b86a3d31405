// JsonConverter: Kafka Connect's org.apache.kafka.connect.json.JsonConverter, reading only.
//
// schemas.enable=true: the data is Connect's envelope {"schema": {...}, "payload": ...} and the
// payload is converted against the schema (logical types Decimal — base64 bytes as Connect writes
// them, or a JSON number —, Date, Time, Timestamp; defaults; optional fields). Identical schema
// text is parsed once: records with the same schema share one Schema object.
// schemas.enable=false: any JSON document, schemaless (objects keep their field order).
//
// Parsing uses simdjson's On Demand API over a private padded copy of the bytes. Every malformed or
// mismatching input throws ConversionError saying what and where. Not thread-safe (one per task).
#pragma once

#include <simdjson.h>

#include <memory>
#include <string>
#include <unordered_map>

#include "ksink/converter.h"

namespace ksink {

class JsonConverter final : public Converter {
 public:
  explicit JsonConverter(bool schemas_enable);

  SchemaAndValue toConnectData(std::string_view topic,
                               std::optional<std::string_view> data) override;

  // Parses one Connect schema in its JSON form (what the envelope's "schema" holds).
  static std::shared_ptr<const Schema> parseSchema(std::string_view json);

 private:
  std::shared_ptr<const Schema> cachedSchema(std::string_view raw);

  struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  bool schemas_enable_;
  simdjson::ondemand::parser parser_;
  std::string buffer_;  // "[" + data + "]" + simdjson padding
  std::unordered_map<std::string, std::shared_ptr<const Schema>, StringHash, std::equal_to<>>
      schemas_;
};

}  // namespace ksink
