#include "exactly_once_source_task.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <stdexcept>
#include <thread>

#include "create_topics.h"
#include "locked_offset_reader.h"
#include "published_status.h"

namespace ksink {

ExactlyOnceSourceTask::ExactlyOnceSourceTask(int id, SourceConnectorConfig settings, Config config,
                                             std::unique_ptr<detail::SourceTaskDriver> task,
                                             std::shared_ptr<ConnectorOffsetStore> store,
                                             const Clock& clock, std::function<void()> before_start)
    : SourceTaskLoop(id, std::move(settings), std::move(config), std::move(task), *store, clock),
      store_(std::move(store)),
      before_start_(std::move(before_start)) {}

ExactlyOnceSourceTask::~ExactlyOnceSourceTask() = default;

std::string ExactlyOnceSourceTask::fencedMessage(const std::string& error) const {
  return fmt::format(
      "{} — the task's producer was fenced or failed for good: another instance of this task "
      "(transactional.id {}) started, or a transaction ran past transaction.timeout.ms; nothing "
      "of the open transaction is visible",
      error, transactionalId(settings_, id()));
}

bool ExactlyOnceSourceTask::initTransactions() {
  // In slices, so a task stopped meanwhile (its partition moved on) does not fence its successor
  // after the fact.
  const auto until = clock_.now() + settings_.transaction_timeout;
  while (!stop_.requested()) {
    try {
      producer_->initTransactions(std::clamp(clock_.timeoutUntil(until),
                                             std::chrono::milliseconds(1),
                                             std::chrono::milliseconds(1000)));
      return true;
    } catch (const KafkaProducer::TransactionFailure& e) {
      if (e.fatal || clock_.now() >= until) throw;
    }
  }
  spdlog::info("{}: stopped before its producer was ready", name());
  return false;
}

std::chrono::milliseconds ExactlyOnceSourceTask::transactionTimeout() const {
  auto timeout = settings_.transaction_timeout;
  if (const auto stop_by = stop_.deadline())
    timeout = std::min(timeout, clock_.timeoutUntil(*stop_by));
  return std::max(timeout, std::chrono::milliseconds(1));
}

void ExactlyOnceSourceTask::configureProducer(std::map<std::string, std::string>& properties) {
  properties["transactional.id"] = transactionalId(settings_, id());
}

bool ExactlyOnceSourceTask::prepare() {
  // Fences the task's older producers (zombies) and ends what they left open, before the
  // offsets topic is read: its committed offsets are then final.
  if (!initTransactions()) return false;
  if (before_start_) before_start_();
  store_->start();
  return true;
}

void ExactlyOnceSourceTask::started() {
  spdlog::info("{} runs exactly once (transactional.id {})", name(),
               transactionalId(settings_, id()));
  {
    std::lock_guard lock(mutex_);
    last_commit_ = clock_.now();
  }
  if (settings_.transaction_boundary == SourceConnectorConfig::TransactionBoundary::kInterval)
    committer_ = std::thread([this] {
      const LogContext::Scope context(logContext());
      serveCommits();
    });
}

void ExactlyOnceSourceTask::checkFailure() {
  std::lock_guard lock(mutex_);
  if (committer_failure_) std::rethrow_exception(committer_failure_);
  // A send the broker refused for good (the producer fenced) fails the task now, not at the
  // next boundary, which may be far off.
  producer_->poll(std::chrono::milliseconds(0));
  if (auto fatal = producer_->fatalError()) throw std::runtime_error(fencedMessage(*fatal));
  store_->poll(std::chrono::milliseconds(0));  // copies to the worker's offsets topic
}

std::vector<detail::PolledRecord> ExactlyOnceSourceTask::pollTask() {
  struct InPoll {  // the committer may commit while the task's poll() runs
    ExactlyOnceSourceTask& self;
    explicit InPoll(ExactlyOnceSourceTask& s) : self(s) { set(true); }
    ~InPoll() { set(false); }
    void set(bool value) {
      std::lock_guard lock(self.mutex_);
      self.in_poll_ = value;
    }
  };
  InPoll in_poll(*this);
  return task_->poll();
}

// A paused task polls nothing, so no boundary would come: what it sent is committed at once, or
// an open transaction would hold back every read_committed consumer of its partitions (and run
// into transaction.timeout.ms), whatever the transaction boundary.
void ExactlyOnceSourceTask::nothingPolled() {
  if (!pause_.paused()) return;
  std::unique_lock lock(mutex_);
  if (committer_failure_) std::rethrow_exception(committer_failure_);
  if (!transaction_open_ && transaction_.offsets().empty()) return;
  last_commit_ = clock_.now();
  endTransaction(detail::TransactionRequest::kCommit, lock);
}

void ExactlyOnceSourceTask::serveCommits() {
  while (!committer_stopping_) {
    clock_.sleepFor(SourcePoll::kIdleWait);
    std::unique_lock lock(mutex_);
    if (!in_poll_ || committer_failure_ || !producer_ || producer_->fatalError()) continue;
    if (!transaction_open_ && transaction_.offsets().empty()) continue;
    if (clock_.now() < last_commit_ + settings_.transaction_boundary_interval) continue;
    try {
      last_commit_ = clock_.now();
      endTransaction(detail::TransactionRequest::kCommit, lock);
    } catch (...) {
      if (!lock.owns_lock()) lock.lock();
      committer_failure_ = std::current_exception();
      lock.unlock();
      spdlog::error("{}: a commit while poll() waited failed: {}", name(),
                    describeFailure(committer_failure_));
      wakeTask();  // its poll() returns, and the task thread fails the task
    }
  }
}

void ExactlyOnceSourceTask::beginIfNeeded() {
  if (transaction_open_) return;
  producer_->beginTransaction();
  transaction_open_ = true;
}

void ExactlyOnceSourceTask::sendRecords() {
  using Boundary = SourceConnectorConfig::TransactionBoundary;
  std::unique_lock lock(mutex_);
  if (committer_failure_) std::rethrow_exception(committer_failure_);
  while (next_to_send_ < to_send_.size()) {
    if (stop_.requested()) return;  // what was sent is committed (or not) by finish()
    auto& r = to_send_[next_to_send_];
    countPolled(r);
    beginIfNeeded();
    const bool keep = task_->wantsCommitRecord();
    if (r.record) {
      if (r.record->topic == store_->topic())
        throw std::runtime_error(fmt::format(
            "Source tasks may not produce to their own offsets topics when exactly-once support "
            "is enabled (a record for {}): its open transaction would block the reads of that "
            "topic",
            r.record->topic));
      const uint64_t token = transaction_.beginSend(keep);
      while (producer_->send(*r.record, token) == KafkaProducer::Send::kQueueFull) {
        if (stop_.requested()) {
          transaction_.abandonSend(keep);
          return;
        }
        producer_->poll(std::chrono::milliseconds(1));  // the byte budget is spent
      }
      transaction_.produced(r.id, r.record->topic, keep);
    } else {
      transaction_.notProduced(r.id, keep);
    }
    transaction_.setOffset(*r.offset_key, std::move(r.offset_value));
    ++next_to_send_;
    if (r.transaction != detail::TransactionRequest::kNone) endTransaction(r.transaction, lock);
  }
  // The batch is sent: its boundary.
  bool end = false;
  switch (settings_.transaction_boundary) {
    case Boundary::kPoll:
      end = true;
      break;
    case Boundary::kInterval:
      // The first transaction ends with its first batch while it is not known whether the task
      // needs its records back for commitRecord() (the data model keeps them until its first
      // call says): a long interval would hold every record of it otherwise.
      end = clock_.now() >= last_commit_ + settings_.transaction_boundary_interval ||
            (counters_.source->transaction_commit_total == 0 && task_->wantsCommitRecord());
      break;
    case Boundary::kConnector:
      if (const auto asked = task_->takeTransactionRequest();
          asked != detail::TransactionRequest::kNone) {
        endTransaction(asked, lock);
        return;
      }
      break;
  }
  if (end) {
    last_commit_ = clock_.now();
    endTransaction(detail::TransactionRequest::kCommit, lock);
  }
}

void ExactlyOnceSourceTask::endTransaction(detail::TransactionRequest how,
                                           std::unique_lock<std::mutex>& lock) {
  Calls aborted, committed;
  if (how == detail::TransactionRequest::kAbort) abortTransaction(aborted);
  commitTransaction(committed);
  if (aborted.empty() && committed.empty()) return;
  const uint64_t turn = calls_.takeTurn();
  lock.unlock();
  calls_.make(turn, {&aborted, &committed});
  lock.lock();
}

void ExactlyOnceSourceTask::abortTransaction(Calls& calls) {
  if (!transaction_open_) return;
  spdlog::info("{}: aborting the transaction of {} record(s), as the task asked", name(),
               transaction_.produced());
  abortOpenTransaction();
  ++counters_.source->transaction_abort_total;
  transaction_.aborted(calls);
}

void ExactlyOnceSourceTask::abortOpenTransaction() {
  if (!transaction_open_) return;
  producer_->abortTransaction(transactionTimeout());
  transaction_open_ = false;
}

void ExactlyOnceSourceTask::commitTransaction(Calls& calls) {
  if (!transaction_open_ && transaction_.offsets().empty()) return;
  const auto started = clock_.now();
  beginIfNeeded();
  // The offsets go where Connect's offsets producer puts them: key and value bytes, partitioned
  // by murmur2 of the key (the task's producer uses Java's partitioner).
  constexpr uint64_t kOffsetToken = UINT64_MAX;
  for (const auto& [key, value] : transaction_.offsets()) {
    detail::ProducerRecordBytes record{store_->topic(), std::nullopt, key, value, {}, std::nullopt};
    while (producer_->send(record, kOffsetToken) == KafkaProducer::Send::kQueueFull)
      producer_->poll(std::chrono::milliseconds(1));
  }
  try {
    producer_->commitTransaction(transactionTimeout());
  } catch (const KafkaProducer::TransactionFailure& e) {
    ++counters_.commits.offset_commit_failure_total;
    transaction_open_ = false;
    if (e.fatal) throw std::runtime_error(fencedMessage(e.what()));
    throw std::runtime_error(fmt::format(
        "{}; {}. If its records take longer than producer.transaction.timeout.ms to write, "
        "raise it, shorten transaction.boundary.interval.ms, or use transaction.boundary=poll",
        e.what(),
        e.abortable
            ? "the transaction was aborted: nothing of it is visible"
            : "whether it committed is not known: a restarted task resumes after what did"));
  }
  transaction_open_ = false;
  store_->committed(transaction_.offsets());
  producer_->poll(std::chrono::milliseconds(0));  // the records' metadata
  const uint64_t produced = transaction_.committed(calls);
  ++counters_.commits.offset_commit_seq_no;
  ++counters_.commits.offset_commit_completion_total;
  ++counters_.source->transaction_commit_total;
  counters_.source->source_record_write_total += produced;
  spdlog::debug(
      "{}: committed a transaction of {} record(s) in {} ms", name(), produced,
      std::chrono::duration_cast<std::chrono::milliseconds>(clock_.now() - started).count());
  publishCounters(counters_);
}

std::exception_ptr ExactlyOnceSourceTask::endSending(std::exception_ptr failure,
                                                     Clock::time_point deadline) {
  committer_stopping_ = true;
  if (committer_.joinable()) committer_.join();
  std::unique_lock lock(mutex_);  // alone now, but the calls release it
  if (!failure && committer_failure_) failure = committer_failure_;
  if (sendingStarted()) {
    using Boundary = SourceConnectorConfig::TransactionBoundary;
    try {
      if (failure || stop_.cancelled()) {
        if (!producer_->fatalError()) abortOpenTransaction();
      } else if (settings_.transaction_boundary != Boundary::kConnector) {
        endTransaction(detail::TransactionRequest::kCommit, lock);  // the final one
      } else if (const auto asked = task_->takeTransactionRequest();
                 asked != detail::TransactionRequest::kNone && next_to_send_ >= to_send_.size()) {
        endTransaction(asked, lock);  // the task asked for a boundary after the whole batch
      } else {
        // Connector boundaries never split what the task asked to keep together: a stop in the
        // middle of a batch (or before the task asked) commits none of it.
        abortOpenTransaction();
      }
    } catch (...) {
      if (!lock.owns_lock()) lock.lock();
      spdlog::error("{}: the final transaction did not complete: {}", name(),
                    describeFailure(std::current_exception()));
      if (!failure) failure = std::current_exception();
    }
    // The copies of the last offsets to the worker's topic, within the stop's deadline.
    store_->drain(clock_.timeoutUntil(deadline));
  }
  return failure;
}

}  // namespace ksink
