// OffsetLedger: per assigned partition, how far the worker has got.
//
//   delivered  — last offset handed to a put() that returned normally, + 1 (or the start position)
//   confirmed  — what the task's preCommit() last declared durable (after filtering)
//   committed  — what the group coordinator last acknowledged (or the start position)
//
// Invariant, kept by every operation: committed ≤ confirmed ≤ delivered. An unknown value (the
// partition's start position is not known yet) counts as below every known one. All offsets follow
// Kafka's convention: the next offset to read.
//
// A plain value class with no librdkafka in it; not thread-safe (the task thread owns it, /status
// reads a copy).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ksink/connector_status.h"
#include "ksink/topic_partition.h"

namespace ksink {

// What preCommit() returned, after the ledger's filters.
struct CommitPlan {
  OffsetMap offsets;  // the whole map to commit for the requested partitions
  bool changed = false;  // false: identical to what is committed, send nothing
  std::vector<std::string> ignored;  // one line per ignored task-provided offset, with the reason
};

class OffsetLedger {
 public:
  // A newly assigned partition starting at `position` (its committed offset, or where
  // auto.offset.reset puts it); nullopt when not known yet.
  void assign(const TopicPartition& tp, std::optional<int64_t> position);
  void remove(const TopicPartition& tp);
  void clear();
  bool contains(const TopicPartition& tp) const { return partitions_.contains(tp); }

  // A put() containing records of `tp` up to `next_offset` - 1 returned normally.
  void markDelivered(const TopicPartition& tp, int64_t next_offset);

  // Consumption of `tp` restarts at `offset` (context.offset() or a rewind after a failed flush).
  // delivered becomes `offset`; confirmed and committed are lowered to it when above, so nothing
  // past the rewind point is ever committed from stale state.
  void rewind(const TopicPartition& tp, int64_t offset);

  // delivered, for the requested partitions that have a known position: the argument of preCommit.
  OffsetMap deliveredOffsets(const std::vector<TopicPartition>& partitions) const;
  OffsetMap deliveredOffsets() const;
  std::vector<TopicPartition> partitions() const;

  // Applies Connect's filters to what preCommit() returned for a commit of `requested`: offsets of
  // partitions not assigned or not requested are ignored, offsets above delivered are ignored, and
  // (ksink only) offsets below the floor are ignored so the group never moves backwards by
  // accident. The floor is the highest of committed and every offset sent in a commit since the
  // partition's last assignment or rewind: a commit whose answer timed out or was replaced may
  // still have moved the group there. Accepted offsets become `confirmed`. Partitions the task did
  // not return keep their floor.
  // The returned plan counts as sent once it changes anything.
  CommitPlan confirm(const std::vector<TopicPartition>& requested, const OffsetMap& task_offsets);

  // The coordinator acknowledged `offsets`. Partitions no longer assigned are ignored; a value above
  // confirmed (possible only after a rewind raced the commit) is clamped to it.
  void markCommitted(const OffsetMap& offsets);

  std::optional<PartitionOffsets> get(const TopicPartition& tp) const;
  const std::map<TopicPartition, PartitionOffsets>& snapshot() const { return partitions_; }

  // True when committed ≤ confirmed ≤ delivered holds for every partition (tests and debug checks).
  bool invariantHolds() const;

 private:
  std::optional<int64_t> floor(const TopicPartition& tp, const PartitionOffsets& p) const;

  std::map<TopicPartition, PartitionOffsets> partitions_;
  std::map<TopicPartition, int64_t> sent_;  // highest offset sent in a commit, per partition
};

}  // namespace ksink
