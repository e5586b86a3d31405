// WorkerSourceTask: runs one source task (Kafka Connect's WorkerSourceTask) — poll() the task,
// produce what it returned through the task's own producer, and commit the source offsets Kafka
// has acknowledged, per source partition up to the first record it has not (SubmittedRecords),
// every offset.flush.interval.ms (SourceCommitCycle) into the connector's OffsetBackingStore.
//
// Two threads. The task's thread polls the task and queues its records; while the producer's
// buffer (the byte budget) is full it waits, so the task is not polled, but stays stoppable. The
// task's service thread serves the producer's acknowledgements (each one's commitRecord()),
// harvests the committable offsets and runs the commit cycle (commit() after each successful
// cycle) — so offsets are committed on time even while the task's poll() blocks, as Connect's
// committer thread does. A RetriableError from poll() waits kPollRetryBackoff and polls again;
// any other exception, and a record Kafka refuses under errors.tolerance=none, fail the task.
//
// Stop (stop(deadline), any thread): the task is woken (SourceTask::wakeup()); the loop ends;
// what is in flight is awaited up to offset.flush.timeout.ms — after a failure too, so a failed
// task commits all that Kafka took, where Connect commits only what was acknowledged when it
// failed; a final commit; stop(). A cancelled task (cancel(): the graceful stop ran out of
// time) commits nothing and drops what is unsent.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "clock.h"
#include "kafka_producer.h"
#include "ksink/config.h"
#include "ksink/connector_status.h"
#include "ksink/detail/source_task_driver.h"
#include "offset_backing_store.h"
#include "source_commit_cycle.h"
#include "source_connector_config.h"
#include "submitted_records.h"
#include "worker_task.h"

namespace ksink {

class WorkerSourceTask final : public WorkerTask {
 public:
  static constexpr std::chrono::milliseconds kPollRetryBackoff{100};
  // An empty poll() is followed by a wait this long (less when a commit is due), so a task that
  // returns at once when it has nothing does not spin a core.
  static constexpr std::chrono::milliseconds kIdleWait{10};

  WorkerSourceTask(int id, SourceConnectorConfig settings, Config config,
                   std::unique_ptr<detail::SourceTaskDriver> task,
                   std::shared_ptr<OffsetBackingStore> store, const Clock& clock = Clock::steady());
  ~WorkerSourceTask() override;

  void run() override;
  void stop(Clock::time_point deadline) override;
  void cancel() override { cancelled_ = true; }
  int id() const override { return id_; }
  TaskStatus status() const override;

 private:
  struct Sent {
    uint64_t seq;        // in submitted_
    uint64_t record_id;  // the driver's
  };
  void iteration();
  void sendRecords();
  void serve();  // the service thread's loop
  void onDelivery(uint64_t token, const std::optional<std::string>& error,
                  const RecordMetadata& metadata);
  void recordCommitted(uint64_t record_id, const std::optional<RecordMetadata>& metadata);
  void harvest();
  std::exception_ptr finish(std::exception_ptr failure);
  // Copies the counters for status(); with a state, sets it (and the error, if any).
  void publish(const char* state = nullptr, const std::string& error = {});

  const int id_;
  const SourceConnectorConfig settings_;
  const Config config_;
  std::unique_ptr<detail::SourceTaskDriver> task_;
  std::shared_ptr<OffsetBackingStore> store_;
  const Clock& clock_;
  std::unique_ptr<KafkaProducer> producer_;

  // Shared by the two threads; recursive: a delivery callback, holding it, calls commitRecord(),
  // and the task may read its offsets from there (through a reader that takes it too).
  mutable std::recursive_mutex mutex_;  // guards the five below, the store and the counters
  SubmittedRecords submitted_;
  SourceCommitCycle commits_;
  std::map<uint64_t, Sent> in_flight_;  // by producer token
  uint64_t next_token_ = 0;
  std::optional<std::string> send_failure_;  // a record Kafka refused, errors.tolerance=none
  std::thread service_;
  std::atomic<bool> service_stopping_{false};

  std::vector<detail::PolledRecord> to_send_;  // the task thread's
  size_t next_to_send_ = 0;
  Clock::time_point poll_not_before_{};
  bool started_ = false;

  std::atomic<bool> stopping_{false};
  std::atomic<bool> cancelled_{false};
  std::atomic<int64_t> stop_deadline_ns_{0};

  TaskCounters counters_;            // guarded by mutex_, published by publish()
  mutable std::mutex status_mutex_;  // guards the three below
  std::string state_name_ = "UNASSIGNED";
  std::string last_error_;
  TaskCounters published_;
};

}  // namespace ksink
