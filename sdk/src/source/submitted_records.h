// SubmittedRecords: which source offsets may be committed (Kafka Connect's SubmittedRecords).
//
// Every record a task's poll() returned is submitted in order, with the offset entry it advances
// (its key: the connector and source partition as stored; its value: the source offset). Per
// source partition, the offset that may be committed is the one of the last record before the
// first that is not yet acknowledged: a record Kafka has not acknowledged holds back every later
// record of its partition, never another partition's. A record that is not sent (a transform
// dropped it, or it was skipped under errors.tolerance=all) is acknowledged at once, so its offset
// is committed like a written one's — unlike Connect, which never commits those (KAFKA-15296).
//
// Not thread-safe: the task's thread submits, acknowledges and harvests.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <unordered_set>

namespace ksink {

// Offset entries to store: key bytes → value bytes (nullopt: a null offset, stored as a tombstone).
using OffsetEntries = std::map<std::string, std::optional<std::string>>;

class SubmittedRecords {
 public:
  // Returns the record's sequence number, for ack().
  uint64_t submit(std::string offset_key, std::optional<std::string> offset_value);
  // The record was acknowledged (or will never be sent). Idempotent.
  void ack(uint64_t seq);
  // Removes the acknowledged prefix of every partition and returns, per partition that had one,
  // the offset of its last record.
  OffsetEntries committable();
  // Records submitted and not yet harvested by committable() (Connect's
  // source-record-active-count counts those not yet acknowledged; see unacknowledged()).
  size_t pending() const { return pending_; }
  size_t unacknowledged() const { return outstanding_.size(); }

 private:
  struct Entry {
    uint64_t seq;
    std::optional<std::string> value;
  };
  std::map<std::string, std::deque<Entry>> partitions_;
  std::unordered_set<uint64_t> outstanding_;  // submitted, not acknowledged
  std::unordered_set<uint64_t> acked_;        // acknowledged, not yet harvested
  uint64_t next_seq_ = 0;
  size_t pending_ = 0;
};

}  // namespace ksink
