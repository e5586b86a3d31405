// ConnectRecord: a record after conversion, as single message transforms see and change it
// (Kafka Connect's ConnectRecord / SinkRecord with structured key, value and headers).
//
// A table sink converts each SinkRecord's bytes (see converter.h) into a ConnectRecord, runs the
// connector's transformation chain on it (see transformation.h), and maps the result to a row.
// A transformation may change everything but `original`: the topic (a router picks another
// destination table), the partition, the timestamp, key, value and headers. What the worker commits
// always comes from `original`, the coordinates the record was consumed with, like Connect 3.6+'s
// SinkRecord.originalKafkaTopic/Partition/Offset.
//
// A source task's records pass through the same chain on their way to Kafka (no `original` then;
// the partition may be unset).
//
// A plain value type; `original` points to the SinkRecord it came from, valid while that is.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ksink/sink_record.h"
#include "ksink/value.h"

namespace ksink {

// A header after conversion. Header bytes are read as optional strings (Connect's
// SimpleHeaderConverter gives strings for text headers); transforms may set any schema and value.
struct ConnectHeader {
  std::string key;
  SchemaAndValue value;
};

struct ConnectRecord {
  std::string topic;
  // nullopt: none chosen (a source record left to the producer's partitioner).
  std::optional<int32_t> partition = 0;
  std::optional<int64_t> timestamp;  // milliseconds since the epoch
  SchemaAndValue key;
  SchemaAndValue value;  // a null value is a tombstone
  std::vector<ConnectHeader> headers;
  const SinkRecord* original = nullptr;  // where it was read; never changed by a transformation
  // Empty the destination table instead of writing a row (a Debezium truncate event, kept by
  // ExtractNewRecordState's truncate.handling.mode=truncate); key and value are ignored.
  bool truncate = false;
  // The destination table a transformation named (the Debezium JDBC sink's collection naming);
  // empty: the topic names it. The topic stays what the record's filters and key columns see.
  std::string destination;

  bool isTombstone() const { return value.value.isNull(); }
  // The last header named `name`, or nullptr.
  const ConnectHeader* header(std::string_view name) const;
  // Removes every header named `name`.
  void removeHeaders(std::string_view name);

  // The record read from `record` with key and value already converted; headers as optional
  // strings (schema optional string).
  static ConnectRecord from(const SinkRecord& record, SchemaAndValue key, SchemaAndValue value);
};

}  // namespace ksink
