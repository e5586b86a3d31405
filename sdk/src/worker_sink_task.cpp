#include "worker_sink_task.h"

#include <algorithm>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "ksink/retriable_error.h"
#include "retry_backoff.h"

namespace ksink {
namespace {

using std::chrono::duration_cast;
using std::chrono::milliseconds;

// A committed-offset or watermark lookup inside the assign callback blocks the poll loop; keep it
// short enough to stay far below max.poll.interval.ms.
constexpr milliseconds kLookupTimeout{10000};

// Rounded up: a wait truncated to whole milliseconds wakes just before `t`, and the loop would then
// spin with zero-timeout polls (and empty put() calls) until the clock reaches `t`.
milliseconds until(WorkerSinkTask::Clock::time_point t) {
  return std::max(milliseconds(0),
                  std::chrono::ceil<milliseconds>(t - WorkerSinkTask::Clock::now()));
}

SinkRecord toRecord(const rd_kafka_message_t* m) {
  rd_kafka_timestamp_type_t ts_type;
  const int64_t ts = rd_kafka_message_timestamp(m, &ts_type);
  std::optional<std::string_view> key, value;
  if (m->key) key = std::string_view(static_cast<const char*>(m->key), m->key_len);
  if (m->payload) value = std::string_view(static_cast<const char*>(m->payload), m->len);
  std::vector<Header> headers;
  rd_kafka_headers_t* hdrs = nullptr;
  if (rd_kafka_message_headers(m, &hdrs) == RD_KAFKA_RESP_ERR_NO_ERROR && hdrs) {
    const char* name;
    const void* val;
    size_t size;
    for (size_t i = 0; rd_kafka_header_get_all(hdrs, i, &name, &val, &size) == 0; ++i) {
      std::optional<std::string_view> hv;
      if (val) hv = std::string_view(static_cast<const char*>(val), size);
      headers.push_back({name, hv});
    }
  }
  return SinkRecord(rd_kafka_topic_name(m->rkt), m->partition, m->offset,
                    ts >= 0 ? std::optional<int64_t>(ts) : std::nullopt, key, value,
                    std::move(headers));
}

TopicPartition partitionOf(const rd_kafka_message_t* m) {
  return {rd_kafka_topic_name(m->rkt), m->partition};
}

std::vector<TopicPartition> toVector(const std::set<TopicPartition>& s) {
  return {s.begin(), s.end()};
}

}  // namespace

void WorkerSinkTask::Batch::dropPartitions(const std::set<TopicPartition>& partitions) {
  if (partitions.empty() || messages.empty()) return;
  std::vector<MessagePtr> kept_messages;
  std::vector<SinkRecord> kept_records;
  for (size_t i = 0; i < messages.size(); ++i) {
    if (partitions.contains(partitionOf(messages[i].get()))) continue;
    kept_messages.push_back(std::move(messages[i]));
    kept_records.push_back(std::move(records[i]));
  }
  messages = std::move(kept_messages);
  records = std::move(kept_records);
}

WorkerSinkTask::WorkerSinkTask(int id, WorkerConfig settings, Config config,
                               std::unique_ptr<SinkTask> task)
    : id_(id),
      settings_(std::move(settings)),
      config_(std::move(config)),
      task_(std::move(task)),
      stage_retry_(settings_.retry_timeout, settings_.retry_delay_max, metrics_.total_retries) {
  // Created here, before the task's thread exists, so status() may read it from any thread.
  if (settings_.errors.reporterEnabled())
    reporter_ = std::make_unique<WorkerErrantRecordReporter>(settings_.errors, settings_.name,
                                                             settings_.sink_name, id_);
}

WorkerSinkTask::~WorkerSinkTask() = default;

void WorkerSinkTask::stop(Clock::time_point deadline) {
  int64_t expected = 0;
  stop_deadline_ns_.compare_exchange_strong(expected, deadline.time_since_epoch().count());
  stopping_ = true;
  stage_retry_.cancel();  // a conversion waiting to be retried inside put() gives up now
}

void WorkerSinkTask::run() {
  std::exception_ptr failure;
  try {
    auto props = settings_.consumer_properties;
    props["client.id"] += fmt::format("-{}", id_);
    // Static membership (KIP-345): one id per consumer, stable across restarts of this process.
    if (auto it = props.find("group.instance.id"); it != props.end())
      it->second += fmt::format("-{}", id_);
    consumer_ = KafkaConsumer::create(props, *this);
    task_->initialize(*this);
    task_->start(config_);
    if (!settings_.topics.empty())
      consumer_->subscribe(settings_.topics);
    else
      consumer_->subscribeRegex(settings_.topics_regex);
    next_commit_ = Clock::now() + settings_.offset_flush_interval;
    spdlog::info("task {}-{} started (group {})", settings_.name, id_, settings_.group_id);
    {
      std::lock_guard lock(snapshot_mutex_);
      state_ = "RUNNING";
    }
    while (!stopping_) iteration();
  } catch (...) {
    failure = std::current_exception();
    try {
      std::rethrow_exception(failure);
    } catch (const std::exception& e) {
      spdlog::error("task {}-{} failed: {}", settings_.name, id_, e.what());
      std::lock_guard lock(snapshot_mutex_);
      last_error_ = e.what();
    } catch (...) {
      spdlog::error("task {}-{} failed with a non-standard exception", settings_.name, id_);
    }
  }
  failure = finish(failure);
  if (failure) std::rethrow_exception(failure);
}

// Connect's shutdown order: final preCommit → close(all) → commit (skipped when cancelled) →
// stop() → consumer close. No preCommit after stop(); the revocations the consumer close
// triggers are ignored.
std::exception_ptr WorkerSinkTask::finish(std::exception_ptr failure) {
  if (stop_deadline_ns_ == 0) stop(Clock::now() + settings_.shutdown_graceful_timeout);
  const Clock::time_point deadline{Clock::duration(stop_deadline_ns_.load())};
  // Rewinds the task asked for but the loop did not apply: the final commit must not cover them.
  for (const auto& [tp, offset] : std::exchange(pending_rewinds_, {})) ledger_.rewind(tp, offset);
  if (consumer_) {
    try {
      // Records of a failed batch were never delivered, so the ledger holds only what was put.
      commitOffsets(CommitMode::kFinal, ledger_.partitions());
    } catch (const std::exception& e) {
      spdlog::error("task {}-{}: final commit failed: {}", settings_.name, id_, e.what());
      if (!failure) failure = std::current_exception();
    }
  }
  try {
    task_->stop();
  } catch (const std::exception& e) {
    spdlog::error("task {}-{}: stop() threw: {}", settings_.name, id_, e.what());
  }
  task_stopped_ = true;
  metrics_.partition_count = 0;
  // librdkafka's close waits until every message it handed out is destroyed: drop what is still
  // held (a batch that failed or waits for redelivery, records parked for paused partitions), or
  // the close would run into the deadline and the group would wait for the session to expire.
  batch_ = Batch{};
  parked_.clear();
  if (consumer_) consumer_->close(until(deadline));
  // The closed consumer has handed its librdkafka handle away: nothing may call it any more (the
  // snapshot below would read watermarks of every assigned partition through it).
  consumer_.reset();
  assigned_.clear();
  ledger_.clear();
  publishSnapshot();
  {
    std::lock_guard lock(snapshot_mutex_);
    state_ = failure ? "FAILED" : "STOPPED";
  }
  spdlog::info("task {}-{} stopped", settings_.name, id_);
  return failure;
}

void WorkerSinkTask::iteration() {
  drainCommitResults();
  // Rewinds first: a commit must not cover records the task asked to have again.
  applyRewinds();
  const auto now = Clock::now();
  if (!inflight_ && (commit_requested_ || now >= next_commit_)) {
    commit_requested_ = false;
    commitOffsets(CommitMode::kPeriodic, toVector(assigned_));
    next_commit_ = now + settings_.offset_flush_interval;  // relative to this commit (KAFKA-8229)
  }
  if (inflight_ && now >= inflight_->started + settings_.offset_flush_timeout) {
    spdlog::warn("task {}-{}: commit of offsets #{} timed out after {} ms", settings_.name, id_,
                 inflight_->seqno, settings_.offset_flush_timeout.count());
    metrics_.offset_commit_failure_total++;
    inflight_.reset();  // its late result is ignored by sequence number; the next cycle retries
  }

  auto deadline = std::min(now + settings_.poll_timeout, next_commit_);
  if (inflight_) deadline = std::min(deadline, inflight_->started + settings_.offset_flush_timeout);
  if (paused_for_redelivery_) deadline = std::min(deadline, retry_at_);
  if (context_timeout_) {
    deadline = std::min(deadline, now + *context_timeout_);
    context_timeout_.reset();
  }
  pollBatch(std::max(deadline, now));
  deliver();
  publishSnapshot();
}

void WorkerSinkTask::pollBatch(Clock::time_point deadline) {
  // Messages parked while their partition was paused go first, once it is not paused any more.
  if (!paused_for_redelivery_ && !parked_.empty()) {
    std::deque<MessagePtr> still_parked;
    while (!parked_.empty()) {
      auto m = std::move(parked_.front());
      parked_.pop_front();
      if (isPaused(partitionOf(m.get())) ||
          static_cast<int>(batch_.messages.size()) >= settings_.max_poll_records)
        still_parked.push_back(std::move(m));
      else
        accept(std::move(m));
    }
    parked_ = std::move(still_parked);
  }
  // Wait for the first message up to the deadline, then take what is already fetched. While a
  // batch waits for redelivery, keep polling (it serves rebalances and keeps the group membership)
  // but park whatever still arrives.
  bool wait = batch_.empty() || paused_for_redelivery_;
  struct {
    rd_kafka_topic_t* rkt = nullptr;
    int32_t partition = -1;
    uint64_t epoch = 0;
    bool assigned = false;
    bool paused = false;
  } run;
  while (paused_for_redelivery_ ||
         static_cast<int>(batch_.messages.size()) < settings_.max_poll_records) {
    auto message = consumer_->poll(wait ? until(deadline) : milliseconds(0));
    if (!message) break;
    if (message->err) {
      if (message->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) continue;
      if (message->err == RD_KAFKA_RESP_ERR__FATAL)
        throw std::runtime_error(fmt::format("fatal consumer error: {}",
                                             rd_kafka_message_errstr(message.get())));
      // Unreachable brokers, unknown topics and the like: librdkafka retries; keep going.
      spdlog::warn("task {}-{}: consumer: {}", settings_.name, id_,
                   rd_kafka_message_errstr(message.get()));
      if (Clock::now() >= deadline) break;
      continue;
    }
    metrics_.sink_record_read_total++;
    // Records come in runs from one partition: decide once per run rather than per record
    // (a rebalance inside poll() bumps the epoch and so ends the run).
    if (message->rkt != run.rkt || message->partition != run.partition ||
        run.epoch != assignment_epoch_) {
      const auto tp = partitionOf(message.get());
      run = {message->rkt, message->partition, assignment_epoch_, assigned_.contains(tp),
             isPaused(tp)};
    }
    if (!run.assigned) continue;  // stale: fetched before a revoke
    if (paused_for_redelivery_ || run.paused) {
      parked_.push_back(std::move(message));
      if (Clock::now() >= deadline) break;
      continue;
    }
    accept(std::move(message));
    wait = false;
  }
}

void WorkerSinkTask::accept(MessagePtr message) {
  batch_.records.push_back(toRecord(message.get()));
  batch_.messages.push_back(std::move(message));
}

void WorkerSinkTask::deliver() {
  // Rewinds asked for since the top of the iteration (in preCommit(), or in open() for a
  // partition assigned earlier) come before put(): the batch must not carry records from the old
  // position past them.
  applyRewinds();
  if (paused_for_redelivery_ && Clock::now() < retry_at_) return;
  const auto started = Clock::now();
  try {
    task_->put(std::span<const SinkRecord>(batch_.records));
  } catch (const RetriableError& e) {
    metrics_.retriable_put_failures++;
    if (!paused_for_redelivery_) {
      first_retry_failure_ = started;
      retry_attempt_ = 0;
    }
    if (settings_.retry_timeout.count() > 0 &&
        started - first_retry_failure_ >= settings_.retry_timeout) {
      throw std::runtime_error(fmt::format(
          "put() kept failing with retriable errors for longer than errors.retry.timeout={} ms: {}",
          settings_.retry_timeout.count(), e.what()));
    }
    const auto delay = retryDelay();
    retry_at_ = Clock::now() + delay;
    ++retry_attempt_;
    metrics_.total_retries++;
    spdlog::warn("task {}-{}: retriable error from put() ({} records), retrying in {} ms: {}",
                 settings_.name, id_, batch_.records.size(), delay.count(), e.what());
    pauseForRedelivery();
    return;
  }
  const auto took = duration_cast<std::chrono::microseconds>(Clock::now() - started).count();
  // Offsets advance only now that put() returned normally.
  // One ledger update per run of records from the same partition, not one per record.
  std::map<TopicPartition, int64_t> next;
  const rd_kafka_message_t* run_start = nullptr;
  int64_t run_next = 0;
  auto endRun = [&] {
    if (!run_start) return;
    auto& n = next[partitionOf(run_start)];
    n = std::max(n, run_next);
  };
  for (const auto& m : batch_.messages) {
    if (!run_start || m->rkt != run_start->rkt || m->partition != run_start->partition) {
      endRun();
      run_start = m.get();
      run_next = 0;
    }
    run_next = std::max(run_next, m->offset + 1);
  }
  endRun();
  for (const auto& [tp, offset] : next) ledger_.markDelivered(tp, offset);
  metrics_.sink_record_send_total += batch_.records.size();
  metrics_.put_batch_count++;
  metrics_.put_batch_total_time_us += static_cast<uint64_t>(took);
  if (static_cast<uint64_t>(took) > metrics_.put_batch_max_time_us)
    metrics_.put_batch_max_time_us = static_cast<uint64_t>(took);
  batch_.records.clear();  // keeps the capacity for the next batch
  batch_.messages.clear();
  if (paused_for_redelivery_) resumeAfterRedelivery();
}

milliseconds WorkerSinkTask::retryDelay() const {
  if (context_timeout_) return *context_timeout_;
  return retryBackoff(retry_attempt_, settings_.retry_delay_max);
}

void WorkerSinkTask::pauseForRedelivery() {
  if (paused_for_redelivery_) return;
  paused_for_redelivery_ = true;
  consumer_->pause(toVector(assigned_));
}

void WorkerSinkTask::resumeAfterRedelivery() {
  paused_for_redelivery_ = false;
  retry_attempt_ = 0;
  std::vector<TopicPartition> to_resume;
  for (const auto& tp : assigned_)
    if (!paused_by_task_.contains(tp)) to_resume.push_back(tp);
  consumer_->resume(to_resume);
}

bool WorkerSinkTask::isPaused(const TopicPartition& tp) const {
  return paused_by_task_.contains(tp);
}

// One commit attempt (Connect's commitOffsets): preCommit with what was delivered, filter what it
// returned, skip when nothing changed, send.
void WorkerSinkTask::commitOffsets(CommitMode mode, const std::vector<TopicPartition>& partitions) {
  const bool closing = mode != CommitMode::kPeriodic;
  const OffsetMap current = ledger_.deliveredOffsets(partitions);
  if (current.empty()) {
    if (closing && !partitions.empty()) task_->close(partitions);
    return;
  }
  // Records reported as errant must be safe in the dead-letter queue before a commit covers them.
  // Not acknowledged yet: no commit this time. A write that failed: that record is safe nowhere,
  // so this task commits nothing more and fails (records since the last commit come again).
  if (reporter_ && !dlq_failed_) {
    const auto delivery = reporter_->awaitDelivered(settings_.offset_flush_timeout);
    if (delivery == ErrantRecordReporter::Delivery::kFailed) dlq_failed_ = true;
    if (delivery == ErrantRecordReporter::Delivery::kPending) {
      spdlog::warn(
          "task {}-{}: dead-letter queue writes not acknowledged within "
          "offset.flush.timeout.ms; not committing past them yet",
          settings_.name, id_);
      metrics_.offset_commit_failure_total++;
      if (closing) task_->close(partitions);
      return;
    }
  }
  if (dlq_failed_) {
    metrics_.offset_commit_failure_total++;
    if (closing) task_->close(partitions);
    throw std::runtime_error(
        "a dead-letter queue write failed: not committing offsets past the record it held");
  }
  const uint64_t seqno = ++commit_seqno_;
  metrics_.offset_commit_seq_no = seqno;
  OffsetMap provided;
  try {
    provided = task_->preCommit(current);
  } catch (const std::exception& e) {
    metrics_.offset_commit_failure_total++;
    if (closing) {
      spdlog::error("task {}-{}: offset commit failed during close: {}", settings_.name, id_,
                    e.what());
      task_->close(partitions);
      return;
    }
    spdlog::error("task {}-{}: preCommit/flush failed, rewinding to the last committed offsets: {}",
                  settings_.name, id_, e.what());
    OffsetMap back;
    for (const auto& tp : partitions)
      if (auto p = ledger_.get(tp); p && p->committed) back[tp] = *p->committed;
    rewindTo(back);
    return;
  }
  // A close() that fails does not make what preCommit() declared durable less so: commit it,
  // then fail with the close error.
  std::exception_ptr close_failure;
  if (closing) {
    try {
      task_->close(partitions);
    } catch (...) {
      close_failure = std::current_exception();
    }
  }
  commitConfirmed(mode, partitions, provided, seqno);
  if (close_failure) std::rethrow_exception(close_failure);
}

void WorkerSinkTask::commitConfirmed(CommitMode mode, const std::vector<TopicPartition>& partitions,
                                     const OffsetMap& provided, uint64_t seqno) {
  if (provided.empty()) {
    spdlog::debug("task {}-{}: skipping offset commit, task returned no offsets", settings_.name,
                  id_);
    metrics_.offset_commit_completion_total++;
    return;
  }
  auto plan = ledger_.confirm(partitions, provided);
  for (const auto& reason : plan.ignored)
    spdlog::warn("task {}-{}: ignoring task-provided offset {}", settings_.name, id_, reason);
  if (!plan.changed) {
    metrics_.offset_commit_completion_total++;
    return;
  }
  if (mode == CommitMode::kFinal && cancelled_) {
    spdlog::warn("task {}-{}: skipping final offset commit, the task was cancelled",
                 settings_.name, id_);
    return;
  }
  if (mode == CommitMode::kPeriodic) {
    if (consumer_->commitAsync(plan.offsets, seqno))
      inflight_ = InflightCommit{seqno, Clock::now(), plan.offsets};
    else
      metrics_.offset_commit_failure_total++;
    return;
  }
  // Revocation and shutdown commit synchronously, but never longer than the flush timeout (and,
  // at shutdown, the graceful-stop deadline).
  auto deadline = Clock::now() + settings_.offset_flush_timeout;
  if (mode == CommitMode::kFinal)
    deadline = std::min(deadline, Clock::time_point{Clock::duration(stop_deadline_ns_.load())});
  if (!commitAndWait(plan.offsets, seqno, deadline))
    spdlog::warn("task {}-{}: commit #{} on {} did not succeed", settings_.name, id_, seqno,
                 mode == CommitMode::kRevoke ? "revocation" : "shutdown");
}

bool WorkerSinkTask::commitAndWait(const OffsetMap& offsets, uint64_t seqno,
                                   Clock::time_point deadline) {
  inflight_ = InflightCommit{seqno, Clock::now(), offsets};
  if (!consumer_->commitAsync(offsets, seqno)) {
    inflight_.reset();
    metrics_.offset_commit_failure_total++;
    return false;
  }
  while (auto result = consumer_->pollCommitResult(until(deadline))) {
    const bool ours = result->seqno == seqno;
    handleCommitResult(*result);
    if (ours) return !result->error;
  }
  inflight_.reset();
  metrics_.offset_commit_failure_total++;
  spdlog::warn("task {}-{}: commit #{} timed out", settings_.name, id_, seqno);
  return false;
}

void WorkerSinkTask::drainCommitResults() {
  while (auto result = consumer_->pollCommitResult(milliseconds(0))) handleCommitResult(*result);
}

void WorkerSinkTask::handleCommitResult(const CommitResult& result) {
  if (!inflight_ || inflight_->seqno != result.seqno) {
    // A newer commit started since (or this one timed out): its result must not overwrite.
    metrics_.offset_commit_skip_total++;
    spdlog::debug("task {}-{}: ignoring out-of-order result of commit #{}", settings_.name, id_,
                  result.seqno);
    return;
  }
  const auto offsets = std::move(inflight_->offsets);
  inflight_.reset();
  if (result.error) {
    metrics_.offset_commit_failure_total++;
    spdlog::error("task {}-{}: commit of offsets #{} failed: {}; retrying next cycle",
                  settings_.name, id_, result.seqno, rd_kafka_err2str(result.error));
    return;
  }
  ledger_.markCommitted(offsets);
  metrics_.offset_commit_completion_total++;
  spdlog::debug("task {}-{}: committed #{}", settings_.name, id_, result.seqno);
}

void WorkerSinkTask::applyRewinds() {
  if (pending_rewinds_.empty()) return;
  rewindTo(std::exchange(pending_rewinds_, {}));
}

void WorkerSinkTask::rewindTo(const OffsetMap& offsets) {
  if (offsets.empty()) return;
  std::set<TopicPartition> rewound;
  for (const auto& [tp, offset] : offsets) {
    ledger_.rewind(tp, offset);
    rewound.insert(tp);
  }
  consumer_->seek(offsets, settings_.offset_flush_timeout);
  batch_.dropPartitions(rewound);
  std::erase_if(parked_, [&](const MessagePtr& m) { return rewound.contains(partitionOf(m.get())); });
  if (paused_for_redelivery_ && batch_.empty()) resumeAfterRedelivery();
}

OffsetMap WorkerSinkTask::onPartitionsAssigned(const std::vector<TopicPartition>& partitions) {
  ++assignment_epoch_;
  // Where each partition starts: its committed offset, else auto.offset.reset's end.
  OffsetMap start = committedOffsets(partitions);
  const auto reset = settings_.consumer_properties.count("auto.offset.reset")
                         ? settings_.consumer_properties.at("auto.offset.reset")
                         : std::string("earliest");
  for (const auto& tp : partitions) {
    assigned_.insert(tp);
    if (!start.contains(tp)) {
      // Unanswered: the partition is assigned without a start, and librdkafka applies
      // auto.offset.reset itself.
      if (auto marks =
              consumer_->watermarks(tp, std::min(kLookupTimeout, settings_.lookup_timeout))) {
        if (reset == "earliest" || reset == "smallest" || reset == "beginning")
          start[tp] = marks->first;
        else if (reset == "latest" || reset == "largest" || reset == "end")
          start[tp] = marks->second;
      }
    }
    const auto it = start.find(tp);
    ledger_.assign(tp, it == start.end() ? std::nullopt : std::optional<int64_t>(it->second));
  }
  metrics_.partition_count = static_cast<int64_t>(assigned_.size());
  // Rewinds requested inside open() are applied as the start offsets: before the first fetch.
  assign_rewinds_.emplace();
  try {
    task_->open(partitions);
  } catch (...) {
    assign_rewinds_.reset();
    throw;
  }
  OffsetMap rewinds = std::move(*assign_rewinds_);
  assign_rewinds_.reset();
  const std::set<TopicPartition> opened(partitions.begin(), partitions.end());
  for (const auto& [tp, offset] : rewinds) {
    if (!opened.contains(tp)) {
      // Assigned before (cooperative assignment): its fetch position moves by a seek, which the
      // loop does before its next commit.
      pending_rewinds_[tp] = offset;
      continue;
    }
    ledger_.rewind(tp, offset);
    start[tp] = offset;
  }
  return start;
}

OffsetMap WorkerSinkTask::committedOffsets(const std::vector<TopicPartition>& partitions) {
  // Guessing a start would replay the partition (earliest) or skip records (latest): retry the
  // lookup for default.api.timeout.ms, then fail the task.
  constexpr milliseconds kRetryDelay{500};
  const auto deadline = Clock::now() + settings_.lookup_timeout;
  while (true) {
    if (auto found = consumer_->committed(partitions, std::min(kLookupTimeout, until(deadline))))
      return *found;
    if (Clock::now() + kRetryDelay >= deadline)
      throw std::runtime_error(fmt::format(
          "cannot read the committed offsets of {} within default.api.timeout.ms ({} ms); not "
          "guessing where to start them",
          fmt::join(partitions, ","), settings_.lookup_timeout.count()));
    std::this_thread::sleep_for(kRetryDelay);
  }
}

void WorkerSinkTask::afterAssigned(const std::vector<TopicPartition>& partitions) {
  std::vector<TopicPartition> to_pause;
  for (const auto& tp : partitions)
    if (paused_for_redelivery_ || paused_by_task_.contains(tp)) to_pause.push_back(tp);
  consumer_->pause(to_pause);
}

void WorkerSinkTask::onPartitionsRevoked(const std::vector<TopicPartition>& partitions,
                                         bool lost) {
  ++assignment_epoch_;
  if (task_stopped_) return;  // KAFKA-10188: nothing reaches the task after stop()
  // The partitions are gone whatever close() does: forget them even when it throws, or the
  // shutdown that the failure starts would preCommit, close and commit them once more (for lost
  // partitions: commit offsets another member may own by now).
  try {
    if (lost) {
      spdlog::warn("task {}-{}: partitions lost: {}", settings_.name, id_,
                   fmt::join(partitions, ","));
      task_->close(partitions);
    } else {
      // A rewind not applied yet: the revocation commit must not cover what it gives back.
      for (const auto& tp : partitions)
        if (auto it = pending_rewinds_.find(tp); it != pending_rewinds_.end())
          ledger_.rewind(tp, it->second);
      commitOffsets(CommitMode::kRevoke, partitions);
    }
  } catch (...) {
    forgetPartitions(partitions);
    throw;
  }
  forgetPartitions(partitions);
}

void WorkerSinkTask::forgetPartitions(const std::vector<TopicPartition>& partitions) {
  const std::set<TopicPartition> removed(partitions.begin(), partitions.end());
  // librdkafka keeps an application pause across unassign/assign: clear ours now.
  std::vector<TopicPartition> paused;
  for (const auto& tp : partitions)
    if (paused_for_redelivery_ || paused_by_task_.contains(tp)) paused.push_back(tp);
  consumer_->resume(paused);
  for (const auto& tp : partitions) {
    ledger_.remove(tp);
    assigned_.erase(tp);
    paused_by_task_.erase(tp);
    pending_rewinds_.erase(tp);
  }
  batch_.dropPartitions(removed);
  std::erase_if(parked_, [&](const MessagePtr& m) { return removed.contains(partitionOf(m.get())); });
  if (paused_for_redelivery_ && batch_.empty()) resumeAfterRedelivery();
  metrics_.partition_count = static_cast<int64_t>(assigned_.size());
}

std::set<TopicPartition> WorkerSinkTask::assignment() const { return assigned_; }

void WorkerSinkTask::offset(const TopicPartition& tp, int64_t offset) {
  if (assign_rewinds_ && assigned_.contains(tp)) {
    (*assign_rewinds_)[tp] = offset;
    return;
  }
  if (!assigned_.contains(tp)) {
    spdlog::warn("task {}-{}: ignoring rewind of {} to {}: partition not assigned", settings_.name,
                 id_, tp, offset);
    return;
  }
  pending_rewinds_[tp] = offset;
}

void WorkerSinkTask::offset(const OffsetMap& offsets) {
  for (const auto& [tp, o] : offsets) offset(tp, o);
}

void WorkerSinkTask::timeout(std::chrono::milliseconds timeout) { context_timeout_ = timeout; }

void WorkerSinkTask::pause(const std::vector<TopicPartition>& partitions) {
  ++assignment_epoch_;
  std::vector<TopicPartition> to_pause;
  for (const auto& tp : partitions) {
    if (!assigned_.contains(tp)) {
      spdlog::warn("task {}-{}: cannot pause {}: not assigned", settings_.name, id_, tp);
      continue;
    }
    if (paused_by_task_.insert(tp).second) to_pause.push_back(tp);
  }
  if (!paused_for_redelivery_) consumer_->pause(to_pause);
}

void WorkerSinkTask::resume(const std::vector<TopicPartition>& partitions) {
  ++assignment_epoch_;
  std::vector<TopicPartition> to_resume;
  for (const auto& tp : partitions)
    if (paused_by_task_.erase(tp)) to_resume.push_back(tp);
  if (!paused_for_redelivery_) consumer_->resume(to_resume);
}

void WorkerSinkTask::publishSnapshot() {
  const auto now = Clock::now();
  std::map<TopicPartition, int64_t> ends;
  const bool refresh_ends = consumer_ && now - ends_refreshed_ >= milliseconds(250);
  if (refresh_ends)
    for (const auto& tp : assigned_)
      if (auto end = consumer_->cachedHighWatermark(tp)) ends[tp] = *end;
  std::lock_guard lock(snapshot_mutex_);
  snapshot_ = ledger_.snapshot();
  if (refresh_ends) {
    ends_ = std::move(ends);
    ends_refreshed_ = now;
  }
}

TaskStatus WorkerSinkTask::status() const {
  TaskStatus out;
  out.id = id_;
  {
    std::lock_guard lock(snapshot_mutex_);
    out.state = state_;
    out.last_error = last_error_;
    for (const auto& [tp, offsets] : snapshot_) {
      PartitionStatus p{tp, offsets, std::nullopt};
      if (auto it = ends_.find(tp); it != ends_.end()) p.end = it->second;
      out.partitions.push_back(std::move(p));
    }
  }
  auto& c = out.counters;
  c.sink_record_read_total = metrics_.sink_record_read_total;
  c.sink_record_send_total = metrics_.sink_record_send_total;
  c.offset_commit_seq_no = metrics_.offset_commit_seq_no;
  c.offset_commit_completion_total = metrics_.offset_commit_completion_total;
  c.offset_commit_skip_total = metrics_.offset_commit_skip_total;
  c.offset_commit_failure_total = metrics_.offset_commit_failure_total;
  c.put_batch_count = metrics_.put_batch_count;
  if (c.put_batch_count > 0)
    c.put_batch_avg_time_ms = double(metrics_.put_batch_total_time_us) / c.put_batch_count / 1000;
  c.put_batch_max_time_ms = double(metrics_.put_batch_max_time_us) / 1000;
  c.retriable_put_failures = metrics_.retriable_put_failures;
  c.total_retries = metrics_.total_retries;
  if (reporter_) {
    const auto& e = reporter_->metrics();
    c.total_record_errors = e.total_record_errors;
    c.total_records_skipped = e.total_records_skipped;
    c.total_errors_logged = e.total_errors_logged;
    c.last_error_timestamp_ms = e.last_error_timestamp_ms;
    c.deadletterqueue_produce_requests = reporter_->dlqProduceRequests();
    c.deadletterqueue_produce_failures = reporter_->dlqProduceFailures();
  }
  return out;
}

std::map<TopicPartition, PartitionOffsets> WorkerSinkTask::ledgerSnapshot() const {
  std::lock_guard lock(snapshot_mutex_);
  return snapshot_;
}

}  // namespace ksink
