// TaskAssignment: the partitions a sink task holds and those it paused (SinkTaskContext::pause),
// or all of them while its connector is paused (TaskPause), with an epoch that changes whenever
// any of these does. While a failed batch waits for redelivery (WorkerBatchDelivery) the consumer
// has every partition paused as well: consumerPaused() says what the consumer's pauses must be.
// Whoever caches a decision about a partition (WorkerBatchDelivery decides once per run of records
// from one partition) keys it by the epoch, so no change can be missed: every mutation here bumps
// it, in one place.
//
// Invariant: the task's pauses ⊆ assigned(). Thread-safety: the task's thread only.
#pragma once

#include <cstdint>
#include <set>
#include <vector>

#include "ksink/topic_partition.h"

namespace ksink {

class TaskAssignment {
 public:
  const std::set<TopicPartition>& assigned() const { return assigned_; }
  std::vector<TopicPartition> partitions() const { return {assigned_.begin(), assigned_.end()}; }
  bool contains(const TopicPartition& tp) const { return assigned_.contains(tp); }
  // Paused by the task, or by its connector.
  bool isPaused(const TopicPartition& tp) const { return all_paused_ || paused_.contains(tp); }
  bool allPaused() const { return all_paused_; }
  // Every partition paused while a failed batch waits to be put() again.
  bool redelivering() const { return redelivering_; }
  // Whether the consumer must have `tp` paused: paused, or redelivering.
  bool consumerPaused(const TopicPartition& tp) const { return redelivering_ || isPaused(tp); }
  // The task's own pause of `tp`, whatever the connector's.
  bool pausedByTask(const TopicPartition& tp) const { return paused_.contains(tp); }
  uint64_t epoch() const { return epoch_; }

  void add(const TopicPartition& tp) {
    assigned_.insert(tp);
    ++epoch_;
  }
  // Forgets the partition, its pause included.
  void remove(const TopicPartition& tp) {
    assigned_.erase(tp);
    paused_.erase(tp);
    ++epoch_;
  }
  void clear() {
    assigned_.clear();
    paused_.clear();
    ++epoch_;
  }
  // Whether the pause is new (false for a partition already paused or not assigned).
  bool pause(const TopicPartition& tp) {
    ++epoch_;
    return assigned_.contains(tp) && paused_.insert(tp).second;
  }
  // Whether the partition was paused.
  bool resume(const TopicPartition& tp) {
    ++epoch_;
    return paused_.erase(tp) > 0;
  }
  // The connector paused (every partition, those assigned later too) or resumed.
  void pauseAll(bool paused) {
    all_paused_ = paused;
    ++epoch_;
  }
  void setRedelivering(bool redelivering) {
    redelivering_ = redelivering;
    ++epoch_;
  }
  // A rebalance is starting: cached decisions end with it, even before any partition changes.
  void rebalancing() { ++epoch_; }

 private:
  std::set<TopicPartition> assigned_;
  std::set<TopicPartition> paused_;
  bool all_paused_ = false;
  bool redelivering_ = false;
  uint64_t epoch_ = 1;
};

}  // namespace ksink
