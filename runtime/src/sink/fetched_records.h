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

#include <deque>
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

  bool empty() const { return records.empty(); }
  size_t size() const { return records.size(); }
  void add(const rd_kafka_message_t* message);
  void clear();
  void dropPartitions(const std::set<TopicPartition>& partitions);

 private:
  std::string_view topic_;  // the last added record's topic, copied once per run of them
};

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
