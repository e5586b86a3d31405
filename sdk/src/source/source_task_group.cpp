#include "source_task_group.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <stdexcept>

#include "kafka_producer.h"
#include "topic_admin.h"

namespace ksink {
namespace {

constexpr std::chrono::milliseconds kMembershipPoll{100};
// How long a task may take beyond the stop's deadline before it is given up on.
constexpr std::chrono::milliseconds kStopSlack{500};

}  // namespace

SourceTaskGroup::SourceTaskGroup(SourceConnectorConfig settings, MakeTask make, const Clock& clock)
    : settings_(std::move(settings)), make_(std::move(make)), clock_(clock) {}

SourceTaskGroup::~SourceTaskGroup() {
  // run() stopped everything; a task thread still here was given up on (it owns its Running).
  for (auto& [id, running] : running_)
    if (running->thread.joinable()) running->thread.detach();
}

void SourceTaskGroup::stop(Clock::time_point deadline) {
  int64_t expected = 0;
  stop_deadline_ns_.compare_exchange_strong(expected, deadline.time_since_epoch().count());
  stopping_ = true;
  std::lock_guard lock(mutex_);
  for (auto& [id, running] : running_) running->task->stop(deadline);
}

void SourceTaskGroup::cancel() {
  cancelled_ = true;
  std::lock_guard lock(mutex_);
  for (auto& [id, running] : running_) running->task->cancel();
}

void SourceTaskGroup::prepareTopic() {
  auto admin_properties = settings_.client_properties;
  KafkaProducer admin(admin_properties, [](uint64_t, const auto&, const auto&) {});
  if (ensureTopic(admin.handle(), settings_.task_group, settings_.worker.tasks_max,
                  settings_.offsets_topic_replication_factor))
    spdlog::info("created the tasks topic {} ({} partitions)", settings_.task_group,
                 settings_.worker.tasks_max);
  const int partitions =
      ensurePartitions(admin.handle(), settings_.task_group, settings_.worker.tasks_max);
  if (!settings_.exactly_once) return;
  // Tasks of a larger tasks.max that may still run somewhere: fenced before ours start.
  for (int id = settings_.worker.tasks_max; id < partitions && !stopping_; ++id) {
    auto properties = settings_.client_properties;
    properties["transactional.id"] = settings_.transactional_id_prefix + std::to_string(id);
    KafkaProducer fencer(properties, [](uint64_t, const auto&, const auto&) {});
    fencer.initTransactions(settings_.transaction_timeout);
    spdlog::info("source connector {}: fenced the producers of task {} (tasks.max is {} now)",
                 settings_.worker.name, id, settings_.worker.tasks_max);
  }
}

void SourceTaskGroup::run() {
  std::exception_ptr failure;
  try {
    prepareTopic();
    consumer_ = KafkaConsumer::create(settings_.membership_properties, *this);
    consumer_->subscribe({settings_.task_group});
    {
      std::lock_guard lock(mutex_);
      state_ = "RUNNING";
    }
    spdlog::info("source connector {}: sharing {} task(s) in group {}", settings_.worker.name,
                 settings_.worker.tasks_max, settings_.task_group);
    while (!stopping_) {
      // Heartbeats and rebalances (the listener starts and stops tasks in here); the topic holds
      // no records.
      consumer_->poll(kMembershipPoll);
      rethrowFailure();
    }
  } catch (...) {
    failure = std::current_exception();
  }
  if (stop_deadline_ns_ == 0) stop(clock_.now() + settings_.worker.shutdown_graceful_timeout);
  const Clock::time_point deadline{Clock::duration(stop_deadline_ns_.load())};
  stopTasks({}, deadline);
  if (consumer_) consumer_->close(std::max(clock_.timeoutUntil(deadline), kStopSlack));
  {
    std::lock_guard lock(mutex_);
    if (!failure) failure = failure_;
    state_ = failure ? "FAILED" : "STOPPED";
  }
  if (failure) std::rethrow_exception(failure);
}

void SourceTaskGroup::rethrowFailure() {
  std::lock_guard lock(mutex_);
  if (failure_) std::rethrow_exception(failure_);
  for (auto& [id, running] : running_)
    if (running->done && running->failure) std::rethrow_exception(running->failure);
}

OffsetMap SourceTaskGroup::onPartitionsAssigned(const std::vector<TopicPartition>& partitions) {
  for (const auto& tp : partitions) {
    if (tp.partition >= settings_.worker.tasks_max) continue;  // an id no longer in use
    if (!stopping_) startTask(tp.partition);
  }
  return {};
}

void SourceTaskGroup::onPartitionsRevoked(const std::vector<TopicPartition>& partitions,
                                          bool lost) {
  std::vector<int> ids;
  for (const auto& tp : partitions) ids.push_back(tp.partition);
  if (lost)
    spdlog::warn(
        "source connector {}: tasks {} were taken from this process (it was away "
        "longer than consumer.session.timeout.ms)",
        settings_.worker.name, ids);
  for (int id : ids)
    if (id < settings_.worker.tasks_max)
      spdlog::info("source connector {}: stopping task {} here ({})", settings_.worker.name, id,
                   lost ? "taken" : "moved by the group");
  stopTasks(ids, clock_.now() + settings_.worker.shutdown_graceful_timeout);
}

void SourceTaskGroup::startTask(int id) {
  std::lock_guard lock(mutex_);
  if (auto it = running_.find(id); it != running_.end()) {
    if (!it->second->done) return;  // already running here
    if (it->second->thread.joinable()) it->second->thread.join();
    running_.erase(it);
  }
  auto running = std::make_shared<Running>();
  running->task = make_(id);
  running->thread = std::thread([r = running] {
    try {
      r->task->run();
    } catch (...) {
      r->failure = std::current_exception();
    }
    r->done = true;
  });
  running_.emplace(id, std::move(running));
  spdlog::info("source connector {}: running task {} here", settings_.worker.name, id);
}

void SourceTaskGroup::stopTasks(std::vector<int> ids, Clock::time_point deadline) {
  std::vector<std::shared_ptr<Running>> stopping;
  {
    std::lock_guard lock(mutex_);
    if (ids.empty())
      for (const auto& [id, running] : running_) ids.push_back(id);
    for (int id : ids) {
      auto it = running_.find(id);
      if (it == running_.end()) continue;
      it->second->task->stop(deadline);
      stopping.push_back(std::move(it->second));
      running_.erase(it);
    }
  }
  for (auto& running : stopping) {
    while (!running->done && clock_.now() < deadline + kStopSlack)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (running->done) {
      running->thread.join();
      std::lock_guard lock(mutex_);
      if (running->failure && !failure_) failure_ = running->failure;  // run() reports it
      continue;
    }
    spdlog::error(
        "source connector {}: a task did not stop within "
        "task.shutdown.graceful.timeout.ms; abandoning it",
        settings_.worker.name);
    running->task->cancel();
    running->thread.detach();
  }
}

TaskStatus SourceTaskGroup::status() const {
  std::lock_guard lock(mutex_);
  TaskStatus out;
  out.id = -1;
  out.state = state_;
  return out;
}

void SourceTaskGroup::appendStatus(std::vector<TaskStatus>& out) const {
  std::lock_guard lock(mutex_);
  for (const auto& [id, running] : running_)
    if (id >= 0) out.push_back(running->task->status());
}

}  // namespace ksink
