// FetchedRecords: what a sink task holds of what it fetched and has not put yet — the batch
// (records copied out of their messages, and what the runtime's conversion made of them) and the
// messages parked while their partition was paused.
//
// Invariant: nothing here belongs to a partition the task no longer holds, or lies past a rewind
// that gave its offsets back: whoever revokes or rewinds a partition drops it here
// (dropPartitions).
//
// Thread-safety: the task's thread only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include "kafka_consumer.h"
#include "ksink/connect_record.h"
#include "ksink/sink_record.h"
#include "record_bytes.h"

namespace ksink {

inline TopicPartition partitionOf(const rd_kafka_message_t* m) {
  return {rd_kafka_topic_name(m->rkt), m->partition};
}

// Records polled but not yet put successfully, and the bytes they view (copied from the messages,
// which are released as soon as they are added).
struct WorkerBatch {
  std::vector<SinkRecord> records;
  RecordBytes bytes;
  // What the runtime's conversion (SinkRecordConversion) made of records[0, converted_count): the
  // records put() gets — those no transform dropped and that were not skipped as bad — and, index
  // for index, their converted form. Empty for a task that converts records itself.
  std::vector<SinkRecord> put_records;
  std::vector<ConnectRecord> connect_records;
  size_t converted_count = 0;
  // The topics of the records, each once, in the order they first came (found where a run of one
  // topic begins, so no record pays for it): what the task's active topics are told.
  std::vector<std::string_view> topics;

  bool empty() const { return records.empty(); }
  size_t size() const { return records.size(); }
  // Copies the message's bytes. Defined below: called per record from the poll loop.
  void add(const rd_kafka_message_t* message);
  void clear();
  void dropPartitions(const std::set<TopicPartition>& partitions);

 private:
  std::string_view topic_;  // the last added record's topic, copied once per run of them
};

inline void WorkerBatch::add(const rd_kafka_message_t* m) {
  auto copy = [this](const void* data, size_t size) {
    return bytes.copy(std::string_view(static_cast<const char*>(data), size));
  };
  if (const std::string_view topic = rd_kafka_topic_name(m->rkt); topic != topic_) {
    topic_ = bytes.copy(topic);
    if (std::find(topics.begin(), topics.end(), topic_) == topics.end()) topics.push_back(topic_);
  }
  rd_kafka_timestamp_type_t ts_type;
  const int64_t ts = rd_kafka_message_timestamp(m, &ts_type);
  std::optional<std::string_view> key, value;
  if (m->key) key = copy(m->key, m->key_len);
  if (m->payload) value = copy(m->payload, m->len);
  std::vector<Header> headers;
  rd_kafka_headers_t* hdrs = nullptr;
  if (rd_kafka_message_headers(m, &hdrs) == RD_KAFKA_RESP_ERR_NO_ERROR && hdrs) {
    const char* name;
    const void* val;
    size_t size;
    for (size_t i = 0; rd_kafka_header_get_all(hdrs, i, &name, &val, &size) == 0; ++i) {
      std::optional<std::string_view> hv;
      if (val) hv = copy(val, size);
      headers.push_back({bytes.copy(name), hv});
    }
  }
  records.emplace_back(topic_, m->partition, m->offset,
                       ts >= 0 ? std::optional<int64_t>(ts) : std::nullopt, key, value,
                       std::move(headers));
}

class FetchedRecords {
 public:
  WorkerBatch& batch() { return batch_; }
  const WorkerBatch& batch() const { return batch_; }
  // Fetched for partitions that were paused at the time, oldest first.
  std::deque<MessagePtr>& parked() { return parked_; }

  // Drops the records and parked messages of `partitions`.
  void dropPartitions(const std::set<TopicPartition>& partitions);
  // Releases everything, the batch's memory included: librdkafka's close waits until every
  // message it handed out is destroyed.
  void release();

 private:
  WorkerBatch batch_;
  std::deque<MessagePtr> parked_;
};

}  // namespace ksink
