// AvroConverter: Confluent's io.confluent.connect.avro.AvroConverter — Avro in Confluent's wire
// format (a zero byte, the schema's registry id as 4 bytes big-endian, the Avro binary datum), with
// its schemas in a registry that serves Confluent's REST API.
//
// Reading: the id's schema comes from the registry once (then from a bounded cache) and is mapped
// to Connect's as Confluent's AvroData maps it (avro_data.h). Writing: the Connect schema becomes
// an Avro schema (avro_writer.h), registered under the subject the name strategy gives
// (auto.register.schemas, the default), or looked up (auto.register.schemas=false), or the
// subject's latest version is written (use.latest.version=true); each schema asks the registry
// once.
//
// Failures: bytes that are not the wire format, an id or subject the registry does not know, a
// schema it refuses as incompatible, a value that does not fit its schema → ConversionError (a bad
// record: errors.tolerance decides). A registry that cannot be reached, times out, answers 5xx or
// refuses the credentials → ConversionUnavailable: the record waits, it is never skipped.
//
// Keys (under key.converter. / value.converter.): AvroConverterConfig::keys(); any other key under
// the prefix is refused by name. Not thread-safe: one per task, like every converter.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "avro/avro_schema.h"
#include "avro/schema_registry_client.h"
#include "ksink/config_def.h"
#include "ksink/converter.h"

namespace ksink::avro {

struct AvroConverterConfig {
  enum class SubjectStrategy { kTopicName, kRecordName, kTopicRecordName };

  RegistrySettings registry;
  bool auto_register = true;
  bool use_latest_version = false;
  SubjectStrategy key_strategy = SubjectStrategy::kTopicName;
  SubjectStrategy value_strategy = SubjectStrategy::kTopicName;

  // The keys the converter takes, without the prefix, for a ConfigDef.
  static void define(ConfigDef& def, const std::string& prefix);
  // Reads the keys under `prefix` ("value.converter.") from `values`. Throws ConfigException
  // naming every key that is missing, malformed or not implemented (with the reason).
  static AvroConverterConfig parse(const std::map<std::string, std::string>& values,
                                   const std::string& prefix);
};

class AvroConverter final : public Converter {
 public:
  AvroConverter(AvroConverterConfig config, bool is_key);

  SchemaAndValue toConnectData(std::string_view topic,
                               std::optional<std::string_view> data) override;
  // A null value is a null (a tombstone), as in Confluent's; a value without a schema is refused.
  std::optional<std::string> fromConnectData(std::string_view topic,
                                             const SchemaAndValue& data) override;
  bool reachesService() const override { return true; }

  // The subject a schema whose Avro full name is `record_name` is registered under for `topic`.
  std::string subject(std::string_view topic, std::string_view record_name) const;

 private:
  struct Read {
    std::shared_ptr<const AvroSchema> avro;
    std::shared_ptr<const Schema> connect;
  };
  struct Written {
    std::shared_ptr<const Schema> connect;  // kept alive: the cache is keyed by its address
    std::shared_ptr<const AvroSchema> avro;
    int32_t id = 0;
  };
  const Read& readSchema(int32_t id);
  const Written& writeSchema(std::string_view topic, const std::shared_ptr<const Schema>& schema);

  AvroConverterConfig config_;
  bool is_key_;
  SchemaRegistryClient registry_;
  std::map<int32_t, Read> read_;
  std::map<std::pair<const Schema*, std::string>, Written> written_;
  const Written* last_written_ = nullptr;  // in written_ (map nodes stay put until cleared)
  std::string last_topic_;
};

}  // namespace ksink::avro
