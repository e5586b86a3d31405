#include "worker_sink_task.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

#include "ksink/config_exception.h"
#include "ksink/retriable_error.h"
#include "sink_record_conversion.h"

namespace ksink {

using std::chrono::milliseconds;

namespace {

// The stall of a sink task (TaskProgress).
constexpr const char* kNoCommit = "no commit while records wait beyond the committed offsets";

std::unique_ptr<WorkerErrantRecordReporter> reporterFor(const SinkConnectorConfig& settings,
                                                        int id) {
  if (!settings.errors.reporterEnabled()) return nullptr;
  return std::make_unique<WorkerErrantRecordReporter>(
      settings.errors, settings.name, settings.sink_name, id, settings.offset_flush_timeout);
}

}  // namespace

WorkerSinkTask::WorkerSinkTask(int id, SinkConnectorConfig settings, Config config,
                               std::unique_ptr<SinkTask> task, const Clock& clock)
    : WorkerTask(id, fmt::format("task {}-{}", settings.name, id), settings.name, clock,
                 settings.shutdown_graceful_timeout, settings.stall_after),
      settings_(std::move(settings)),
      config_(std::move(config)),
      task_(std::move(task)),
      scope_{id, settings_, *task_, metrics_, clock},
      reporter_(reporterFor(settings_, id)),
      stage_retry_(settings_.retry_timeout, settings_.retry_delay_max, metrics_.total_retries,
                   clock),
      delivery_(scope_, consumer_, assignment_, fetched_, rewinds_, ledger_),
      commits_(scope_, consumer_, assignment_, ledger_, reporter_.get(), delivery_, stop_),
      rebalance_(scope_, consumer_, assignment_, ledger_, rewinds_, fetched_, delivery_, commits_),
      context_(scope_, consumer_, assignment_, rewinds_, reporter_.get(), delivery_, commits_,
               config_, stage_retry_) {}

WorkerSinkTask::~WorkerSinkTask() = default;

void WorkerSinkTask::start() {
  auto props = settings_.consumer_properties;
  props["client.id"] += fmt::format("-{}", id());
  // Static membership (KIP-345): one id per consumer, stable across restarts of this process.
  if (auto it = props.find("group.instance.id"); it != props.end())
    it->second += fmt::format("-{}", id());
  consumer_ = KafkaConsumer::create(props, rebalance_);
  task_->initialize(context_);
  setUpConversion();
  if (!startTask()) return;  // stopped while it waited to start again
  if (!settings_.topics.empty())
    consumer_->subscribe(settings_.topics);
  else
    consumer_->subscribeRegex(settings_.topics_regex);
  commits_.start();
  spdlog::info("task {}-{} started (group {})", settings_.name, id(), settings_.group_id);
}

// ksink's, beyond Connect (where any failure of start() fails the task): a RetriableError from
// start() is a task that cannot start yet (its database away) and asks to be started again, after
// the timeout it set through its context (kStartRetryDelay otherwise); the task bounds its tries by
// throwing another error. Meanwhile the consumer has not joined the group, and the status shows the
// task RUNNING with why it waits.
bool WorkerSinkTask::startTask() {
  for (;;) {
    try {
      task_->start(config_);
      published_.clearError();
      return true;
    } catch (const RetriableError& e) {
      const auto wait = delivery_.takeRequestedTimeout().value_or(kStartRetryDelay);
      spdlog::warn("task {}-{}: start() failed, starting again in {} ms: {}", settings_.name, id(),
                   wait.count(), e.what());
      published_.setState("RUNNING", e.what());
      if (stop_.sleepUntil(clock_, clock_.now() + wait)) return false;
    }
  }
}

void WorkerSinkTask::setUpConversion() {
  // Checked before any task starts too (ksink run, on the sink's own definitions), but a Worker
  // built by a program gets its configuration here first.
  auto problems = SinkRecordConversion::refused(config_.values(),
                                                config_.definitions().find("transforms") != nullptr,
                                                [&] { return task_->convertsRecords(); });
  if (!problems.empty()) throw ConfigException(std::move(problems));
  if (task_->convertsRecords()) return;
  conversion_ = std::make_unique<SinkRecordConversion>(config_, fetched_.batch(), reporter_.get(),
                                                       stage_retry_);
  delivery_.convertWith(conversion_.get());
}

// Connect's shutdown order: final preCommit → close(all) → commit (skipped when cancelled) →
// stop() → consumer close. No preCommit after stop(); the revocations the consumer close
// triggers are ignored.
std::exception_ptr WorkerSinkTask::finish(std::exception_ptr failure, Clock::time_point deadline) {
  // Rewinds the task asked for but the loop did not apply: the final commit must not cover them.
  for (const auto& [tp, offset] : rewinds_.takePending()) ledger_.rewind(tp, offset);
  if (consumer_) {
    try {
      // Records of a failed batch were never delivered, so the ledger holds only what was put.
      commits_.commit(WorkerCommitCycle::Mode::kFinal, ledger_.partitions());
    } catch (const std::exception& e) {
      spdlog::error("task {}-{}: final commit failed: {}", settings_.name, id(), e.what());
      if (!failure) failure = std::current_exception();
    }
  }
  try {
    task_->stop();
  } catch (const std::exception& e) {
    spdlog::error("task {}-{}: stop() threw: {}", settings_.name, id(), e.what());
  }
  rebalance_.taskStopped();
  metrics_.partition_count = 0;
  // librdkafka's close waits until every message it handed out is destroyed: drop what is still
  // held (a batch that failed or waits for redelivery, records parked for paused partitions), or
  // the close would run into the deadline and the group would wait for the session to expire.
  fetched_.release();
  if (consumer_) consumer_->close(scope_.until(deadline));
  // The closed consumer has handed its librdkafka handle away: nothing may call it any more (the
  // snapshot below would read watermarks of every assigned partition through it).
  consumer_.reset();
  assignment_.clear();
  ledger_.clear();
  publishSnapshot();
  return failure;
}

void WorkerSinkTask::iteration() {
  applyPause();
  commits_.drainResults();
  // Rewinds first: a commit must not cover records the task asked to have again.
  delivery_.applyRewinds();
  const auto now = scope_.now();
  commits_.tick(now);

  auto deadline = std::min(now + settings_.poll_timeout, commits_.nextWakeup());
  if (delivery_.pausedForRedelivery()) deadline = std::min(deadline, delivery_.retryAt());
  if (const auto timeout = delivery_.takeRequestedTimeout())
    deadline = std::min(deadline, now + *timeout);
  delivery_.pollBatch(std::max(deadline, now));
  // Records to put are work, before a put() that may not return (the snapshot comes after it).
  if (!fetched_.batch().empty()) progress_.continueWait(kNoCommit);
  markTopics();
  delivery_.deliver();
  publishSnapshot();
}

void WorkerSinkTask::markTopics() {
  for (const auto topic : fetched_.batch().topics) topics_->used(topic);
}

void WorkerSinkTask::applyPause() {
  const bool paused = pause_.paused();
  if (paused == assignment_.allPaused()) return;
  assignment_.pauseAll(paused);
  spdlog::info("task {}-{} {}", settings_.name, id(), paused ? "paused" : "resumed");
  // Paused for a redelivery, the partitions resume with it (as isPaused() then says).
  if (assignment_.redelivering()) return;
  std::vector<TopicPartition> partitions;
  for (const auto& tp : assignment_.assigned())
    if (paused || !assignment_.pausedByTask(tp)) partitions.push_back(tp);
  if (paused)
    consumer_->pause(partitions);
  else
    consumer_->resume(partitions);
}

void WorkerSinkTask::publishSnapshot() {
  const auto now = scope_.now();
  std::map<TopicPartition, int64_t> ends;
  const bool refresh_ends = consumer_ && now - ends_refreshed_ >= milliseconds(250);
  if (refresh_ends)
    for (const auto& tp : assignment_.assigned())
      if (auto end = consumer_->cachedHighWatermark(tp)) ends[tp] = *end;
  std::lock_guard lock(snapshot_mutex_);
  snapshot_ = ledger_.snapshot();
  if (refresh_ends) {
    ends_ = std::move(ends);
    ends_refreshed_ = now;
  }
  trackProgress();
}

// Work is a record delivered beyond a partition's committed offset (a high watermark is no
// measure: on a transactional topic it lies past the last record); progress, a commit that moved
// one on.
void WorkerSinkTask::trackProgress() {
  bool work = false;
  int64_t committed = 0;
  for (const auto& [tp, offsets] : snapshot_) {
    committed += offsets.committed.value_or(0);
    if (offsets.delivered && offsets.delivered > offsets.committed) work = true;
  }
  if (!work || pause_.paused())
    progress_.endWait();
  else if (std::exchange(committed_sum_, committed) != committed)
    progress_.beginWait(kNoCommit);
  else
    progress_.continueWait(kNoCommit);
}

TaskStatus WorkerSinkTask::status() const {
  TaskStatus out = WorkerTask::status();
  {
    std::lock_guard lock(snapshot_mutex_);
    for (const auto& [tp, offsets] : snapshot_) {
      PartitionStatus p{tp, offsets, std::nullopt};
      if (auto it = ends_.find(tp); it != ends_.end()) p.end = it->second;
      out.partitions.push_back(std::move(p));
    }
  }
  auto& sink = out.counters.sink.emplace();
  sink.sink_record_read_total = metrics_.sink_record_read_total;
  sink.sink_record_send_total = metrics_.sink_record_send_total;
  sink.put_batch_count = metrics_.put_batch_count;
  if (sink.put_batch_count > 0)
    sink.put_batch_avg_time_ms =
        double(metrics_.put_batch_total_time_us) / double(sink.put_batch_count) / 1000;
  sink.put_batch_max_time_ms = double(metrics_.put_batch_max_time_us) / 1000;
  sink.retriable_put_failures = metrics_.retriable_put_failures;
  auto& commits = out.counters.commits;
  commits.offset_commit_seq_no = metrics_.offset_commit_seq_no;
  commits.offset_commit_completion_total = metrics_.offset_commit_completion_total;
  commits.offset_commit_skip_total = metrics_.offset_commit_skip_total;
  commits.offset_commit_failure_total = metrics_.offset_commit_failure_total;
  auto& errors = out.counters.errors;
  errors.total_retries = metrics_.total_retries;
  if (const auto* reporter = reporter_.get()) {
    const auto& e = reporter->metrics();
    errors.total_record_errors = e.total_record_errors;
    errors.total_records_skipped = e.total_records_skipped;
    errors.total_errors_logged = e.total_errors_logged;
    errors.last_error_timestamp_ms = e.last_error_timestamp_ms;
    errors.deadletterqueue_produce_requests = reporter->dlqProduceRequests();
    errors.deadletterqueue_produce_failures = reporter->dlqProduceFailures();
  }
  return out;
}

std::map<TopicPartition, PartitionOffsets> WorkerSinkTask::ledgerSnapshot() const {
  std::lock_guard lock(snapshot_mutex_);
  return snapshot_;
}

}  // namespace ksink
