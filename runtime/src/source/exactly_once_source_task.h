// ExactlyOnceSourceTask: runs one source task exactly once (Kafka Connect's
// ExactlyOnceWorkerSourceTask, KIP-618) — its records and its source offsets written in one Kafka
// transaction, so a reader with isolation.level=read_committed sees each record once whatever
// happens to the process, and a restarted task resumes exactly after the last committed record.
//
// The task's producer is transactional, id `<group.id>-<connector>-<task>`; starting it fences
// every older producer with that id (a zombie: the same task in a process paused or cut off, then
// back) and aborts the transaction it left open. Then the offsets topic is read (committed data
// only) and the task started.
//
// The task's thread polls, sends and ends transactions. A transaction begins with the first
// record after the last one ended; each record's offset is recorded once the producer took it. It
// ends (transaction.boundary): poll — after each batch poll() returned; interval — at the end of
// the first batch once transaction.boundary.interval.ms passed since the last commit, or, while
// the task's poll() waits for data, by a second thread as soon as it passed (records do not wait
// in an open transaction for a quiet source; Connect commits at batch ends only); connector —
// where the task asked through its TransactionContext (a record-level request right after that
// record). The two threads share the producer's transaction under the worker's lock, never held
// while the task's code runs: commitRecord() and commit() calls are made after it is released,
// one commit's after another's (the same rule as WorkerSourceTask's). A commit sends
// the transaction's offsets (the newest per source partition) to the connector's offsets topic
// with the same producer, then commits; only then does the task get commitRecord() for each record
// and commit(). What commitRecord() needs is kept per record only while the task has one of its
// own (SourceTask's does nothing): a long interval holds a few words per record then. An abort
// drops the records and commits their offsets alone, so the task does not see the same records
// again (Connect's rule). A batch whose transaction has nothing in it commits nothing and calls
// nothing.
//
// Its loop is SourceTaskLoop's, its lifecycle WorkerTask's. Any failure of a send or a commit fails
// the task (a fenced producer: the task was replaced). A record for the connector's own offsets
// topic fails it too: the open transaction would block the reads of that topic. Stop: the loop ends
// after the current record; with poll and interval boundaries the open transaction is committed
// (within the stop's deadline), with connector boundaries only if the task asked; a failed or
// cancelled task aborts it.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "clock.h"
#include "connector_offset_store.h"
#include "ksink/config.h"
#include "source_connector_config.h"
#include "source_task_driver.h"
#include "source_task_loop.h"
#include "transaction_contents.h"

namespace ksink {

class ExactlyOnceSourceTask final : public SourceTaskLoop {
 public:
  ExactlyOnceSourceTask(int id, SourceConnectorConfig settings, Config config,
                        std::unique_ptr<detail::SourceTaskDriver> task,
                        std::shared_ptr<ConnectorOffsetStore> store,
                        const Clock& clock = Clock::steady(),
                        std::function<void()> before_start = {});
  ~ExactlyOnceSourceTask() override;

  // The producer's transactional.id for task `id`.
  static std::string transactionalId(const SourceConnectorConfig& settings, int id) {
    return settings.transactional_id_prefix + std::to_string(id);
  }

 private:
  using Calls = SourceTaskCalls::Due;  // what a commit or an abort owes the task

  // SourceTaskLoop's hooks.
  void configureProducer(std::map<std::string, std::string>& properties) override;
  void delivered(uint64_t token, const std::optional<std::string>& error,
                 const RecordMetadata& metadata) override {
    // A failed record fails the transaction's commit, which fails the task.
    if (!error) transaction_.delivered(token, metadata);
  }
  // The fencing round, the group's check, the offsets read.
  bool prepare() override;
  void started() override;  // the committer thread (interval boundaries)
  void checkFailure() override;
  std::vector<detail::PolledRecord> pollTask() override;
  void nothingPolled() override;  // commits what a paused task sent
  void sendRecords() override;
  std::exception_ptr endSending(std::exception_ptr failure, Clock::time_point deadline) override;
  void publish() override {
    std::lock_guard lock(mutex_);
    publishCounters(counters_);
  }

  // With `lock` (on mutex_) held: ends the open transaction — commits it, or aborts it and commits
  // its offsets alone — then makes the task's calls with the lock released, and takes it again.
  void endTransaction(detail::TransactionRequest how, std::unique_lock<std::mutex>& lock);
  void commitTransaction(Calls& calls);  // with mutex_ held
  void abortTransaction(Calls& calls);   // with mutex_ held
  void abortOpenTransaction();           // with mutex_ held; no calls owed, no count
  // The committer thread's loop (interval boundaries): commits a due transaction while the task's
  // poll() waits.
  void serveCommits();
  void beginIfNeeded();
  // The producer's fencing round (retried while its coordinator is not reachable); false when the
  // task was stopped first.
  bool initTransactions();
  std::chrono::milliseconds transactionTimeout() const;
  std::string fencedMessage(const std::string& error) const;

  std::shared_ptr<ConnectorOffsetStore> store_;
  // Run after the fencing round, before the offsets are read and the task starts; throws to fail
  // the task (a group's check that its split of the work is still the current one).
  const std::function<void()> before_start_;

  // Under mutex_, which also guards the producer's transaction (and the delivery callback, which
  // runs inside the producer's calls).
  bool in_poll_ = false;  // the task thread is in the task's poll()
  std::exception_ptr committer_failure_;
  Clock::time_point last_commit_{};
  bool transaction_open_ = false;
  TransactionContents transaction_;

  std::atomic<bool> committer_stopping_{false};
  std::thread committer_;
};

}  // namespace ksink
