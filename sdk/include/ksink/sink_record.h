// SinkRecord: one Kafka record as handed to SinkTask::put().
//
// Two faces, as Connect's SinkRecord has: the record as it was consumed — topic(), partition(),
// offset() (what the worker commits), timestamp(), and the key, value and header bytes — and,
// through converted(), the record the runtime made of it: key and value with their schemas after
// `key.converter` / `value.converter`, headers after `header.converter`, and whatever the
// connector's `transforms=` chain changed (a router's topic, a field inserted, …). converted() is
// ksink::ConnectRecord, defined by the data model (include "ksink/connect_record.h" to read it);
// it is null only for a task that converts records itself (SinkTask::convertsRecords()).
//
// A record is a view: its topic name, key, value and header names and values, and the converted
// record, point into the worker's copy of the batch and stay valid for the duration of the put()
// call that received them (and of a redelivery of the same batch). A sink that keeps any of them
// past put() must copy it.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "ksink/detail/format_as_formatter.h"
#include "ksink/topic_partition.h"

namespace ksink {

struct ConnectRecord;  // the data model's (ksink/connect_record.h)

struct Header {
  std::string_view key;
  std::optional<std::string_view> value;  // nullopt = null header value
};

class SinkRecord {
 public:
  SinkRecord(std::string_view topic, int32_t partition, int64_t offset,
             std::optional<int64_t> timestamp, std::optional<std::string_view> key,
             std::optional<std::string_view> value, std::vector<Header> headers = {})
      : topic_(topic),
        partition_(partition),
        offset_(offset),
        timestamp_(timestamp),
        key_(key),
        value_(value),
        headers_(std::move(headers)) {}

  std::string_view topic() const { return topic_; }
  int32_t partition() const { return partition_; }
  int64_t offset() const { return offset_; }
  TopicPartition topicPartition() const { return {std::string(topic_), partition_}; }
  // Milliseconds since the epoch; nullopt when the producer set none (Kafka's -1).
  std::optional<int64_t> timestamp() const { return timestamp_; }
  // nullopt = null key.
  std::optional<std::string_view> key() const { return key_; }
  // nullopt = null value (a tombstone).
  std::optional<std::string_view> value() const { return value_; }
  std::span<const Header> headers() const { return headers_; }
  // The record after the runtime's converters and transforms (see above); nullptr for a task that
  // converts records itself.
  const ConnectRecord* converted() const { return converted_; }

 private:
  friend class SinkRecordConversion;  // the runtime's, which sets converted_

  std::string_view topic_;
  int32_t partition_;
  int64_t offset_;
  std::optional<int64_t> timestamp_;
  std::optional<std::string_view> key_;
  std::optional<std::string_view> value_;
  std::vector<Header> headers_;
  const ConnectRecord* converted_ = nullptr;
};

// A record's coordinates, "topic-partition@offset", for error messages and logs.
inline std::string format_as(const SinkRecord& r) {
  return fmt::format("{}-{}@{}", r.topic(), r.partition(), r.offset());
}

}  // namespace ksink

template <>
struct fmt::formatter<ksink::SinkRecord> : ksink::detail::FormatAsFormatter<ksink::SinkRecord> {};
