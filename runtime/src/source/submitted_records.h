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
// submit() returns the record's handle; ack() it once, before committable() harvests it (the
// handle stays valid until then). Not thread-safe: the caller serialises the calls.
#pragma once

#include <cstddef>
#include <deque>
#include <map>
#include <optional>
#include <string>

namespace ksink {

// Offset entries to store: key bytes → value bytes (nullopt: a null offset, stored as a tombstone).
using OffsetEntries = std::map<std::string, std::optional<std::string>>;

class SubmittedRecords {
 public:
  struct Entry {
    std::optional<std::string> value;
    bool acked = false;
  };
  using Handle = Entry*;

  Handle submit(const std::string& offset_key, std::optional<std::string> offset_value);
  // The record was acknowledged (or will never be sent). Twice is harmless until it is harvested.
  void ack(Handle record);
  // Removes the acknowledged prefix of every partition and returns, per partition that had one,
  // the offset of its last record.
  OffsetEntries committable();
  // Records submitted and not yet harvested by committable().
  size_t pending() const { return pending_; }
  // Records submitted and not yet acknowledged (Connect's source-record-active-count).
  size_t unacknowledged() const { return unacknowledged_; }

 private:
  using Partitions = std::map<std::string, std::deque<Entry>>;
  Partitions partitions_;  // a deque keeps its elements in place as its ends change
  Partitions::iterator last_ = partitions_.end();  // most records go to the partition before
  size_t pending_ = 0;
  size_t unacknowledged_ = 0;
};

}  // namespace ksink
