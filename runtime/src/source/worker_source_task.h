// WorkerSourceTask: runs one source task (Kafka Connect's WorkerSourceTask) — poll() the task,
// produce what it returned through the task's own producer, and commit the source offsets Kafka
// has acknowledged, per source partition up to the first record it has not (SubmittedRecords),
// every offset.flush.interval.ms (SourceCommitCycle) into the connector's OffsetBackingStore.
//
// Its loop is SourceTaskLoop's, its lifecycle WorkerTask's. Two threads. The task's thread polls
// the task and queues its records; while the producer's buffer (the byte budget) is full it waits,
// so the task is not polled, but stays stoppable. The task's service thread serves the producer's
// acknowledgements, harvests the committable offsets and runs the commit cycle — so offsets are
// committed on time even while the task's poll() blocks, as Connect's committer thread does. The
// task's own code (poll(), commitRecord(), commit(), its offset reads) never runs under the
// worker's lock: commitRecord() calls are collected under it and made after, so a task that guards
// its state with a lock of its own cannot deadlock with the worker. A RetriableError from poll()
// is retried (SourcePoll); any other exception, and a record Kafka refuses under
// errors.tolerance=none, fail the task.
//
// Stop (stop(deadline), any thread): the task is woken (SourceTask::wakeup(), only between its
// start() and stop()); the loop ends; what is in flight is awaited up to offset.flush.timeout.ms
// (after a failure too, as Connect does); a final commit; stop(). A cancelled task (cancel(): the
// graceful stop ran out of time) commits nothing and drops what is unsent, without reporting those
// records as failed.
#pragma once

#include <atomic>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "clock.h"
#include "ksink/config.h"
#include "offset_backing_store.h"
#include "source_commit_cycle.h"
#include "source_connector_config.h"
#include "source_task_driver.h"
#include "source_task_loop.h"
#include "submitted_records.h"

namespace ksink {

class WorkerSourceTask final : public SourceTaskLoop {
 public:
  WorkerSourceTask(int id, SourceConnectorConfig settings, Config config,
                   std::unique_ptr<detail::SourceTaskDriver> task,
                   std::shared_ptr<OffsetBackingStore> store, const Clock& clock = Clock::steady());
  ~WorkerSourceTask() override;

 private:
  // A record handed to the producer, by its token (tokens count up from in_flight_base_).
  struct InFlight {
    SubmittedRecords::Handle handle;
    uint64_t record_id;  // the driver's
    bool done = false;
  };
  struct Delivery {
    uint64_t token;
    std::optional<std::string> error;
    RecordMetadata metadata;
  };
  using Committed = SourceTaskCalls::Due;

  // SourceTaskLoop's hooks.
  void delivered(uint64_t token, const std::optional<std::string>& error,
                 const RecordMetadata& metadata) override {
    deliveries_.push_back({token, error, metadata});
  }
  bool prepare() override;  // the offsets store started
  void started() override;  // the service thread
  void checkFailure() override;
  void sendRecords() override;
  std::exception_ptr endSending(std::exception_ptr failure, Clock::time_point deadline) override;
  void publish() override;

  void serve();  // the service thread's loop
  // With mutex_ held: the acknowledgements collected by the producer's callback; adds the
  // commitRecord() calls to make (after releasing the lock) to `committed`.
  void applyDeliveries(Committed& committed);
  void harvest();  // with mutex_ held

  std::shared_ptr<OffsetBackingStore> store_;  // a file store is shared by the tasks

  // Under mutex_.
  SubmittedRecords submitted_;
  SourceCommitCycle commits_;
  std::deque<InFlight> in_flight_;
  uint64_t in_flight_base_ = 0;              // the token of in_flight_.front()
  std::optional<std::string> send_failure_;  // a record Kafka refused, errors.tolerance=none

  // Filled by the producer's callback, drained by applyDeliveries(); only the thread serving
  // the producer touches it (the service thread, then the task thread once it has stopped).
  std::vector<Delivery> deliveries_;
  std::atomic<bool> producer_closing_{false};  // purged: failures are not the records' fault

  std::atomic<bool> service_stopping_{false};
  std::thread service_;
};

}  // namespace ksink
