// SourceRecord: one record a source task's poll() returns (Kafka Connect's SourceRecord, same
// names and meanings): where it comes from — a source partition and the offset within it, both
// maps of Connect values — and where it goes — a topic, optionally a Kafka partition, a key and a
// value with their schemas, a timestamp and headers.
//
// The source partition and offset keep their entries in the order the task put them: they are
// stored in Connect's offset format, keyed by their serialized bytes, so the same partition must be
// built the same way (same keys, same order, same value types) every time to find its offset.
// Values are primitives (strings, integers, floating point, booleans, bytes, null), as Connect's
// offset storage requires.
//
// A plain value type: safe to copy and to hand to another thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ksink/connect_record.h"
#include "ksink/schema.h"
#include "ksink/value.h"

namespace ksink {

// A source partition or offset: ordered entries.
using SourceMap = Value::Object;

class SourceRecord {
 public:
  SourceRecord(std::optional<SourceMap> source_partition, std::optional<SourceMap> source_offset,
               std::string topic, std::optional<int32_t> kafka_partition, SchemaAndValue key,
               SchemaAndValue value, std::optional<int64_t> timestamp = std::nullopt,
               std::vector<ConnectHeader> headers = {})
      : source_partition_(std::move(source_partition)),
        source_offset_(std::move(source_offset)),
        topic_(std::move(topic)),
        kafka_partition_(kafka_partition),
        key_(std::move(key)),
        value_(std::move(value)),
        timestamp_(timestamp),
        headers_(std::move(headers)) {}
  // Without a key (Connect's five-argument constructor).
  SourceRecord(std::optional<SourceMap> source_partition, std::optional<SourceMap> source_offset,
               std::string topic, std::optional<int32_t> kafka_partition, SchemaAndValue value)
      : SourceRecord(std::move(source_partition), std::move(source_offset), std::move(topic),
                     kafka_partition, SchemaAndValue{}, std::move(value)) {}

  // nullopt: Connect's null map (a null partition is one partition; a null offset is stored as a
  // tombstone, forgetting the partition's offset).
  const std::optional<SourceMap>& sourcePartition() const { return source_partition_; }
  const std::optional<SourceMap>& sourceOffset() const { return source_offset_; }
  const std::string& topic() const { return topic_; }
  // nullopt: the producer's partitioner picks (murmur2 of the key bytes, as Java's does).
  std::optional<int32_t> kafkaPartition() const { return kafka_partition_; }
  const std::shared_ptr<const Schema>& keySchema() const { return key_.schema; }
  const Value& key() const { return key_.value; }
  const std::shared_ptr<const Schema>& valueSchema() const { return value_.schema; }
  const Value& value() const { return value_.value; }
  // Milliseconds since the epoch; nullopt: the producer stamps the time it sends.
  std::optional<int64_t> timestamp() const { return timestamp_; }
  const std::vector<ConnectHeader>& headers() const { return headers_; }

  const SchemaAndValue& keyAndSchema() const { return key_; }
  const SchemaAndValue& valueAndSchema() const { return value_; }

 private:
  friend class SourceTaskAdapter;  // moves a record's data out once nothing needs the record
  std::optional<SourceMap> source_partition_;
  std::optional<SourceMap> source_offset_;
  std::string topic_;
  std::optional<int32_t> kafka_partition_;
  SchemaAndValue key_;
  SchemaAndValue value_;
  std::optional<int64_t> timestamp_;
  std::vector<ConnectHeader> headers_;
};

}  // namespace ksink
