#include "worker_commit_cycle.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

namespace ksink {

using std::chrono::milliseconds;

void WorkerCommitCycle::start() {
  next_commit_ = scope_.now() + scope_.settings.offset_flush_interval;
}

void WorkerCommitCycle::tick(time_point now) {
  const auto& settings = scope_.settings;
  if (!inflight_ && (requested_ || now >= next_commit_)) {
    requested_ = false;
    commit(Mode::kPeriodic, assignment_.partitions());
    next_commit_ = now + settings.offset_flush_interval;  // relative to this commit (KAFKA-8229)
  }
  if (inflight_ && now >= inflight_->started + settings.offset_flush_timeout) {
    spdlog::warn("task {}-{}: commit of offsets #{} timed out after {} ms", settings.name,
                 scope_.id, inflight_->seqno, settings.offset_flush_timeout.count());
    scope_.metrics.offset_commit_failure_total++;
    inflight_.reset();  // its late result is ignored by sequence number; the next cycle retries
  }
}

WorkerCommitCycle::time_point WorkerCommitCycle::nextWakeup() const {
  if (!inflight_) return next_commit_;
  return std::min(next_commit_, inflight_->started + scope_.settings.offset_flush_timeout);
}

// preCommit with what was delivered, filter what it returned, skip when nothing changed, send.
void WorkerCommitCycle::commit(Mode mode, const std::vector<TopicPartition>& partitions) {
  const auto& s = scope_;
  const bool closing = mode != Mode::kPeriodic;
  const OffsetMap current = ledger_.deliveredOffsets(partitions);
  if (current.empty()) {
    if (closing && !partitions.empty()) s.task.close(partitions);
    return;
  }
  // Records reported as errant must be safe in the dead-letter queue before a commit covers them.
  // Not acknowledged yet: no commit this time. A write that failed: that record is safe nowhere,
  // so this task commits nothing more and fails (records since the last commit come again).
  if (reporter_ && !dlq_failed_) {
    const auto delivery = reporter_->awaitDelivered();
    if (delivery == ErrantRecordReporter::Delivery::kFailed) dlq_failed_ = true;
    if (delivery == ErrantRecordReporter::Delivery::kPending) {
      spdlog::warn(
          "task {}-{}: dead-letter queue writes not acknowledged within "
          "offset.flush.timeout.ms; not committing past them yet",
          s.settings.name, s.id);
      s.metrics.offset_commit_failure_total++;
      if (closing) s.task.close(partitions);
      return;
    }
  }
  if (dlq_failed_) {
    s.metrics.offset_commit_failure_total++;
    if (closing) s.task.close(partitions);
    throw std::runtime_error(
        "a dead-letter queue write failed: not committing offsets past the record it held");
  }
  const uint64_t seqno = ++seqno_;
  s.metrics.offset_commit_seq_no = seqno;
  OffsetMap provided;
  try {
    provided = s.task.preCommit(current);
  } catch (const std::exception& e) {
    s.metrics.offset_commit_failure_total++;
    if (closing) {
      spdlog::error("task {}-{}: offset commit failed during close: {}", s.settings.name, s.id,
                    e.what());
      s.task.close(partitions);
      return;
    }
    spdlog::error("task {}-{}: preCommit/flush failed, rewinding to the last committed offsets: {}",
                  s.settings.name, s.id, e.what());
    OffsetMap back;
    for (const auto& tp : partitions)
      if (auto p = ledger_.get(tp); p && p->committed) back[tp] = *p->committed;
    delivery_.rewindTo(back);
    return;
  }
  // A close() that fails does not make what preCommit() declared durable less so: commit it,
  // then fail with the close error.
  std::exception_ptr close_failure;
  if (closing) {
    try {
      s.task.close(partitions);
    } catch (...) {
      close_failure = std::current_exception();
    }
  }
  commitConfirmed(mode, partitions, provided, seqno);
  if (close_failure) std::rethrow_exception(close_failure);
}

void WorkerCommitCycle::commitConfirmed(Mode mode, const std::vector<TopicPartition>& partitions,
                                        const OffsetMap& provided, uint64_t seqno) {
  const auto& s = scope_;
  if (provided.empty()) {
    spdlog::debug("task {}-{}: skipping offset commit, task returned no offsets", s.settings.name,
                  s.id);
    s.metrics.offset_commit_completion_total++;
    return;
  }
  auto plan = ledger_.confirm(partitions, provided);
  for (const auto& reason : plan.ignored)
    spdlog::warn("task {}-{}: ignoring task-provided offset {}", s.settings.name, s.id, reason);
  if (!plan.changed) {
    s.metrics.offset_commit_completion_total++;
    return;
  }
  if (mode == Mode::kFinal && stop_.cancelled()) {
    spdlog::warn("task {}-{}: skipping final offset commit, the task was cancelled",
                 s.settings.name, s.id);
    return;
  }
  if (mode == Mode::kPeriodic) {
    if (consumer_->commitAsync(plan.offsets, seqno))
      inflight_ = InflightCommit{seqno, s.now(), plan.offsets};
    else
      s.metrics.offset_commit_failure_total++;
    return;
  }
  // Revocation and shutdown commit synchronously, but never longer than the flush timeout (and,
  // at shutdown, the graceful-stop deadline).
  auto deadline = s.now() + s.settings.offset_flush_timeout;
  if (const auto stop_by = stop_.deadline(); mode == Mode::kFinal && stop_by)
    deadline = std::min(deadline, *stop_by);
  if (!commitAndWait(plan.offsets, seqno, deadline))
    spdlog::warn("task {}-{}: commit #{} on {} did not succeed", s.settings.name, s.id, seqno,
                 mode == Mode::kRevoke ? "revocation" : "shutdown");
}

bool WorkerCommitCycle::commitAndWait(const OffsetMap& offsets, uint64_t seqno,
                                      time_point deadline) {
  const auto& s = scope_;
  inflight_ = InflightCommit{seqno, s.now(), offsets};
  if (!consumer_->commitAsync(offsets, seqno)) {
    inflight_.reset();
    s.metrics.offset_commit_failure_total++;
    return false;
  }
  while (auto result = consumer_->pollCommitResult(s.until(deadline))) {
    const bool ours = result->seqno == seqno;
    handleResult(*result);
    if (ours) return !result->error;
  }
  inflight_.reset();
  s.metrics.offset_commit_failure_total++;
  spdlog::warn("task {}-{}: commit #{} timed out", s.settings.name, s.id, seqno);
  return false;
}

void WorkerCommitCycle::drainResults() {
  while (auto result = consumer_->pollCommitResult(milliseconds(0))) handleResult(*result);
}

void WorkerCommitCycle::handleResult(const CommitResult& result) {
  const auto& s = scope_;
  if (!inflight_ || inflight_->seqno != result.seqno) {
    // A newer commit started since (or this one timed out): its result must not overwrite.
    s.metrics.offset_commit_skip_total++;
    spdlog::debug("task {}-{}: ignoring out-of-order result of commit #{}", s.settings.name, s.id,
                  result.seqno);
    return;
  }
  const auto offsets = std::move(inflight_->offsets);
  inflight_.reset();
  if (result.error) {
    s.metrics.offset_commit_failure_total++;
    spdlog::error("task {}-{}: commit of offsets #{} failed: {}; retrying next cycle",
                  s.settings.name, s.id, result.seqno, rd_kafka_err2str(result.error));
    return;
  }
  ledger_.markCommitted(offsets);
  s.metrics.offset_commit_completion_total++;
  spdlog::debug("task {}-{}: committed #{}", s.settings.name, s.id, result.seqno);
}

}  // namespace ksink
