// SourceTaskLoop: what both source task kinds do alike (Kafka Connect's
// AbstractWorkerSourceTask), with at-least-once (WorkerSourceTask) and exactly-once
// (ExactlyOnceSourceTask) as two sets of hooks.
//
// Start: the task's producer (client.id suffixed with the task's id, plus what the kind adds), the
// kind's preparation (its offsets store; the fencing round), then the task started with its
// committed offsets read through the worker's lock. The loop: the kind's check for a failure
// found on another thread, then poll() (SourcePoll: the pause, the retry backoff, the poll
// metrics), the batch's new topics created (KIP-158), and the batch handed to the kind's
// sendRecords(), which may return before the batch is through (the producer's buffer full, a
// stop): the next turn goes on with it before polling again. An empty poll waits
// SourcePoll::kIdleWait, so a task that returns at once when it has nothing does not spin a core.
// Teardown: the kind ends what it sent (a final commit, or nothing for a cancelled or failed
// task), then the task is stopped (only if it started; a failure of its stop() is the task's when
// nothing failed before) and the producer closed.
//
// Thread-safety: as WorkerTask. The task's code never runs under mutex_ (see SourceTaskCalls).
#pragma once

#include <chrono>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "kafka_producer.h"
#include "ksink/config.h"
#include "locked_offset_reader.h"
#include "source_connector_config.h"
#include "source_poll.h"
#include "source_task_calls.h"
#include "source_task_driver.h"
#include "source_task_waker.h"
#include "topic_creation.h"
#include "worker_task.h"

namespace ksink {

class SourceTaskLoop : public WorkerTask {
 protected:
  // `offsets`: where the task's committed offsets are read (the kind's store; it must outlive
  // the task).
  SourceTaskLoop(int id, SourceConnectorConfig settings, Config config,
                 std::unique_ptr<detail::SourceTaskDriver> task,
                 const detail::OffsetEntryReader& offsets, const Clock& clock);

  // The kind's hooks, on the task's thread unless said otherwise.
  // What the kind adds to the producer's properties.
  virtual void configureProducer(std::map<std::string, std::string>& /*properties*/) {}
  // Inside the producer's calls, on whichever thread made one: a record's acknowledgement.
  virtual void delivered(uint64_t token, const std::optional<std::string>& error,
                         const RecordMetadata& metadata) = 0;
  // Before the task starts: false when it must not (a stop came first).
  virtual bool prepare() = 0;
  // Once the task started: the kind's own threads.
  virtual void started() = 0;
  // At the top of each turn: throws a failure another thread found.
  virtual void checkFailure() = 0;
  // The task's poll(), as the kind calls it.
  virtual std::vector<detail::PolledRecord> pollTask() { return task_->poll(); }
  // Nothing was polled (paused, or backing off after a retriable failure).
  virtual void nothingPolled() {}
  // Sends to_send_ from next_to_send_ (advancing it), or returns early; called for an empty
  // batch too (a boundary may still be due).
  virtual void sendRecords() = 0;
  // Ends what was sent: the kind's threads stopped, then a final commit, or none for a failed or
  // cancelled task. Returns the task's failure: `failure`, else the commit's.
  virtual std::exception_ptr endSending(std::exception_ptr failure, Clock::time_point deadline) = 0;
  // Copies the counters for status().
  virtual void publish() = 0;

  // Counts what a polled record says of itself (a partition key mismatch, a record skipped
  // before it was sent); with mutex_ held.
  void countPolled(const detail::PolledRecord& record);
  void wakeTask() { waker_.wake(); }
  // The task started, and a producer is there: something may have been sent.
  bool sendingStarted() const { return waker_.hasStarted() && producer_ != nullptr; }
  // "<connector>-<id>", as the task's log lines and calls name it.
  const std::string& label() const { return label_; }

  const SourceConnectorConfig settings_;
  const Config config_;
  const std::string label_;
  std::unique_ptr<detail::SourceTaskDriver> task_;
  std::optional<TopicCreation> topic_creation_;  // the task thread's

  // The worker's lock: guards what each kind says, the store and counters_. Never held while the
  // task's code runs.
  std::mutex mutex_;
  TaskCounters counters_{{}, {}, std::nullopt, SourceCounters{}};
  SourceTaskCalls calls_;  // its turns taken under mutex_

  // The batch poll() returned, and the next of it to send (the task thread's).
  std::vector<detail::PolledRecord> to_send_;
  size_t next_to_send_ = 0;

  SourceTaskWaker waker_;
  // Made by start(), closed by finish() before run() returns: its callback uses the kind's members.
  std::unique_ptr<KafkaProducer> producer_;

 private:
  void start() final;
  void iteration() final;
  std::exception_ptr finish(std::exception_ptr failure, Clock::time_point deadline) final;
  void onStop(Clock::time_point) final { wakeTask(); }

  SourcePoll poll_;  // the task thread's
  LockedOffsetReader reader_;
};

}  // namespace ksink
