// KafkaConsumer: the librdkafka high-level consumer as the worker needs it, and nothing more.
//
// - Rebalances are handed to a RebalanceListener from inside poll(); the wrapper performs the
//   (incremental) assign/unassign itself, so a listener cannot get the protocol wrong. An exception
//   from the listener never crosses librdkafka's C frames: it is stored and rethrown by poll().
// - Commits are asynchronous on a private queue and tagged with a sequence number; results are
//   read with pollCommitResult(), which takes a timeout, so no commit wait is unbounded
//   (librdkafka 2.0.2's synchronous commit has no timeout).
// - close() is bounded: librdkafka's consumer close (and destroy) wait for an in-flight commit even
//   when the coordinator never answers, so teardown runs on a helper thread that is abandoned at
//   the deadline. A cooperative-sticky consumer closed before its first assignment first waits
//   for it (bounded), as librdkafka 2.0.2 aborts destroying it then (its issue #4312).
// - A small prefetch does not stall: librdkafka 2.0.2 does not wake its fetcher when the
//   application drains the queue, so the consumer watches the queue (PrefetchWatch) and wakes the
//   fetcher (FetchWaker) when it has drained far enough, and after every resume().
//
// Thread-safety: one thread (the task's) calls everything; the listener is called on that thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fetch_waker.h"
#include "ksink/topic_partition.h"
#include "prefetch_watch.h"
#include "rdkafka_handles.h"

namespace ksink {

class RebalanceListener {
 public:
  virtual ~RebalanceListener() = default;
  // Newly assigned partitions (never empty). Returns the offsets to start them at; partitions left
  // out start at their committed offset (or auto.offset.reset).
  virtual OffsetMap onPartitionsAssigned(const std::vector<TopicPartition>& partitions) = 0;
  // Called right after the partitions were added to the assignment (pause them here: librdkafka
  // cannot pause a partition before it is assigned).
  virtual void afterAssigned(const std::vector<TopicPartition>& partitions) = 0;
  // Partitions taken away; `lost` when they were revoked involuntarily (may be owned elsewhere
  // already: do not commit them).
  virtual void onPartitionsRevoked(const std::vector<TopicPartition>& partitions, bool lost) = 0;
};

struct CommitResult {
  uint64_t seqno = 0;
  rd_kafka_resp_err_t error = RD_KAFKA_RESP_ERR_NO_ERROR;
  OffsetMap offsets;
};

class KafkaConsumer : public std::enable_shared_from_this<KafkaConsumer> {
 public:
  // Throws std::runtime_error when librdkafka rejects the properties.
  static std::shared_ptr<KafkaConsumer> create(const std::map<std::string, std::string>& properties,
                                               RebalanceListener& listener);
  ~KafkaConsumer();
  KafkaConsumer(const KafkaConsumer&) = delete;
  KafkaConsumer& operator=(const KafkaConsumer&) = delete;

  void subscribe(const std::vector<std::string>& topics);
  void subscribeRegex(const std::string& regex);

  // The next message or error event; nullptr on timeout. Rebalance callbacks run inside; an
  // exception raised by the listener is rethrown here after librdkafka returned.
  MessagePtr poll(std::chrono::milliseconds timeout);

  // Whether its rebalances follow the cooperative protocol (partition.assignment.strategy is
  // cooperative-sticky).
  bool cooperative() const { return cooperative_; }
  std::vector<TopicPartition> assignment() const;

  // Sends an asynchronous commit; its result arrives through pollCommitResult() with `seqno`.
  // Returns false (and nothing will arrive) when librdkafka refused to send it.
  bool commitAsync(const OffsetMap& offsets, uint64_t seqno);
  // The next commit result, or nullopt when none arrived within `timeout`.
  std::optional<CommitResult> pollCommitResult(std::chrono::milliseconds timeout);

  // Committed offsets of `partitions` (blocking round trip, bounded by `timeout`); partitions
  // without a committed offset are left out. nullopt when the query failed.
  std::optional<OffsetMap> committed(const std::vector<TopicPartition>& partitions,
                                     std::chrono::milliseconds timeout);
  // Low and high watermark of a partition, or nullopt when the broker did not answer in time.
  std::optional<std::pair<int64_t, int64_t>> watermarks(const TopicPartition& tp,
                                                        std::chrono::milliseconds timeout);
  // The high watermark as last seen by the fetcher (no round trip); nullopt when unknown.
  std::optional<int64_t> cachedHighWatermark(const TopicPartition& tp);

  // Moves the fetch position of assigned partitions (purges prefetched messages). Throws
  // std::runtime_error naming the partition when librdkafka could not move one: the caller has
  // already given up the records past the new position, so it must not go on as if it had.
  void seek(const OffsetMap& offsets, std::chrono::milliseconds timeout);
  // The timeout argument rd_kafka_seek_partitions() needs for `timeout` under librdkafka
  // `version` (rd_kafka_version()): before 2.1.0 it read the value as microseconds, so a
  // timeout given in milliseconds lasted 1000 times too short (5 ms instead of 5 s) and a seek on
  // a busy machine failed as timed out.
  static int seekTimeoutArgument(std::chrono::milliseconds timeout, int version);
  void pause(const std::vector<TopicPartition>& partitions);
  void resume(const std::vector<TopicPartition>& partitions);

  // Leaves the group and destroys the handle, giving up after `timeout` (the handle is then left
  // to a detached thread). The listener is not called any more once close() has started. True
  // when the handle was destroyed within `timeout` (not when it had to be left: see destroy()).
  bool close(std::chrono::milliseconds timeout);

  // The member id the group coordinator gave it (empty before its first JoinGroup answer).
  std::string memberId() const;

  // Wake-up requests sent to the fetcher so far (see FetchWaker).
  uint64_t fetchWakeups() const;

 private:
  KafkaConsumer() = default;
  static void rebalanceCallback(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                                rd_kafka_topic_partition_list_t* partitions, void* opaque);
  void onRebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                   rd_kafka_topic_partition_list_t* partitions);
  // Whether `rk` may be destroyed; see kafka_consumer.cpp (librdkafka #4312).
  bool awaitAssignorState(rd_kafka_t* rk, std::chrono::steady_clock::time_point deadline);
  // Closes (unless `flags` say not to) and destroys `rk` once it may be destroyed; otherwise leaves
  // it undestroyed rather than abort the process (false).
  bool destroy(rd_kafka_t* rk, std::chrono::steady_clock::time_point deadline, int flags);

  rd_kafka_t* rk_ = nullptr;  // destroyed by close() or the destructor
  QueueHandle commit_queue_;
  QueueHandle consumer_queue_;  // where every partition's fetched messages wait for poll()
  std::optional<PrefetchWatch> prefetch_;
  std::unique_ptr<FetchWaker> waker_;
  bool cooperative_ = false;  // see cooperative()
  bool subscribed_ = false;
  std::atomic<bool> assigned_once_{false};  // a first assignment came (set by onRebalance)
  RebalanceListener* listener_ = nullptr;
  std::exception_ptr listener_error_;
};

}  // namespace ksink
