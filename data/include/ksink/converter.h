// Converter: turns a record's key or value bytes into a SchemaAndValue and back, like Kafka
// Connect's Converter.toConnectData() / fromConnectData(). Sinks read with theirs, sources write;
// both get them from makeConverter(). What fromConnectData() writes is what Connect's converter of
// the same name writes for the same data, byte for byte.
//
// Chosen by `key.converter` / `value.converter` with Connect's class names or short aliases:
//   org.apache.kafka.connect.json.JsonConverter       | json    (+ `<prefix>.schemas.enable`,
//                                                                default true: Connect's envelope
//                                                                {"schema": …, "payload": …})
//   org.apache.kafka.connect.storage.StringConverter  | string  → optional string
//   org.apache.kafka.connect.converters.ByteArrayConverter | bytes → optional bytes
//   io.confluent.connect.avro.AvroConverter           | avro    (+ `<prefix>.schema.registry.url`
//                                                                and Confluent's other keys:
//                                                                Avro through a schema registry,
//                                                                docs/avro.md)
// The default for both is the JSON converter with schemas enabled, as in Connect.
//
// Thread-safety: a Converter keeps parse buffers and a schema cache; use one per task (thread).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "ksink/config.h"
#include "ksink/config_def.h"
#include "ksink/conversion_error.h"
#include "ksink/value.h"

namespace ksink {

class Converter {
 public:
  virtual ~Converter() = default;
  // `data` nullopt = a null key/value (tombstone): returns a null value with a null schema.
  // Throws ConversionError when the bytes cannot be converted; never crashes on any input.
  virtual SchemaAndValue toConnectData(std::string_view topic,
                                       std::optional<std::string_view> data) = 0;
  // The bytes of `data` (nullopt = a null key/value: what Connect writes for a null schema and
  // value). Throws ConversionError for data the converter cannot write (a value its schema does not
  // admit, a kind the converter does not carry).
  virtual std::optional<std::string> fromConnectData(std::string_view topic,
                                                     const SchemaAndValue& data) = 0;

  // Whether converting reaches a service (a schema registry), so that either direction may throw
  // ConversionUnavailable (a RetriableError that is no record's fault) while it is away.
  virtual bool reachesService() const { return false; }

  // Builds the key (`is_key`) or value converter named in `config`; throws ConfigException for an
  // unknown converter name.
  static std::unique_ptr<Converter> create(const Config& config, bool is_key);
  // The same with `fallback` (a class name or alias) where `config` names no converter.
  static std::unique_ptr<Converter> create(const Config& config, bool is_key,
                                           std::string_view fallback);
  // The converter keys (`key.converter`, `value.converter`, `*.schemas.enable`) for a sink's
  // ConfigDef.
  static const ConfigDef& configDef();
  // The same keys with `fallback` as the converters' default.
  static ConfigDef configDef(std::string_view fallback);

  // Connect's class names of two of them.
  static constexpr std::string_view kJsonClass = "org.apache.kafka.connect.json.JsonConverter";
  static constexpr std::string_view kBytesClass =
      "org.apache.kafka.connect.converters.ByteArrayConverter";
};

// Same as Converter::create (the name the sink-layer plan uses).
inline std::unique_ptr<Converter> makeConverter(const Config& config, bool is_key) {
  return Converter::create(config, is_key);
}

}  // namespace ksink
