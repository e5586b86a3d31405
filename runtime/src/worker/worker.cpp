#include "ksink/worker.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <condition_variable>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "active_topics.h"
#include "clock.h"
#include "sink_connector_config.h"
#include "source_connector_config.h"
#include "task_kind.h"
#include "worker_config.h"
#include "worker_impl.h"

namespace ksink {

void Worker::Impl::run() {
  auto state = std::make_shared<RunState>();
  if (!startTasks(state)) return;
  const int abandoned = awaitTasks(*state);
  std::unique_lock lock(mutex_);
  // Every task ended: no restart starts one any more. One under way finishes first (it holds the
  // thread of the task it replaces), without starting its task.
  ended_ = true;
  restarts_changed_.wait(lock, [&] { return restarts_.empty(); });
  for (auto& slot : slots_) {
    if (!slot.thread.joinable()) continue;
    if (abandoned == 0)
      slot.thread.join();
    else
      slot.thread.detach();  // the thread owns its task through shared_ptr
  }
  lock.unlock();
  std::lock_guard guard(state->mutex);
  // Under exit.on.task.failure=false a failure was the task's, shown in its status.
  if (state->first_failure && settings_.exit_on_task_failure)
    std::rethrow_exception(state->first_failure);
  // Not a graceful stop: what the abandoned tasks had in flight was neither committed nor closed.
  if (abandoned > 0)
    throw std::runtime_error(
        fmt::format("{} task(s) did not stop within task.shutdown.graceful.timeout.ms and were "
                    "abandoned",
                    abandoned));
}

bool Worker::Impl::startTasks(const std::shared_ptr<RunState>& state) {
  // The factory is the connector's code and may take its time: run it without the lock, so
  // stop() and status() never wait for it.
  {
    std::lock_guard lock(mutex_);
    if (stop_deadline_) return false;  // stopped before it started
  }
  std::vector<Slot> created;
  for (int i = 0; i < kind_.count.value_or(settings_.tasks_max); ++i)
    created.push_back({kind_.make(i, clock_), {}});
  for (auto& slot : created) slot.task->shareTopics(topics_);
  {
    std::lock_guard lock(mutex_);
    if (stop_deadline_) return false;  // stopped while the factory ran
    slots_ = std::move(created);
    if (paused_)
      for (auto& slot : slots_) slot.task->pause();
    state_ = state;
    state->running = static_cast<int>(slots_.size());
    slots_.front().thread = launch(state, slots_.front().task);
  }
  if (slots_.size() > 1 && kind_.stagger_start) awaitFirstAssignment(*state);
  std::lock_guard lock(mutex_);
  for (size_t i = 1; i < slots_.size(); ++i) slots_[i].thread = launch(state, slots_[i].task);
  return true;
}

int Worker::Impl::awaitTasks(RunState& state) {
  std::unique_lock lock(state.mutex);
  bool stopping_others = false;
  while (true) {
    std::optional<Clock::time_point> deadline;
    {
      std::lock_guard guard(mutex_);
      deadline = stop_deadline_;
    }
    // Under exit.on.task.failure=false (Connect's way) a failed task stays FAILED, the others run
    // on, and the connector runs until it is stopped, its tasks all failed or not.
    if (state.running == 0 && (settings_.exit_on_task_failure || deadline)) break;
    if (settings_.exit_on_task_failure && state.first_failure && !stopping_others) {
      // One task failed: stop the others gracefully so run() can report the failure.
      stopping_others = true;
      lock.unlock();
      stop();
      lock.lock();
      continue;
    }
    if (!deadline) {
      state.changed.wait_for(lock, std::chrono::milliseconds(100));
      if (restarts_policy_.enabled() && !settings_.exit_on_task_failure) {
        lock.unlock();
        restartFailedTasks();
        lock.lock();
      }
      continue;
    }
    // Tasks bound their own teardown by the deadline; allow a little slack, then give up on them.
    const auto give_up = *deadline + std::chrono::milliseconds(500);
    if (!clock_.sleepUntil(lock, state.changed, give_up, [&] { return state.running == 0; })) {
      spdlog::error("{} task(s) did not stop within task.shutdown.graceful.timeout.ms; abandoning",
                    state.running);
      std::lock_guard guard(mutex_);
      for (auto& slot : slots_) slot.task->cancel();
      return state.running;
    }
  }
  return 0;
}

// Consumers of one group that join at once cost librdkafka 2.0.2 two seconds when the broker
// completes the first join without waiting (group.initial.rebalance.delay.ms=0): the first
// member's SyncGroup fails with REBALANCE_IN_PROGRESS and it may rejoin only a second after its
// last JoinGroup, which its main thread, asleep for up to a second, notices a second later. So
// the first task joins alone and starts working; the others follow once it has partitions (at
// most a second later: on a broker that delays the first join they still make its first
// generation), and one rebalance spreads the partitions.
void Worker::Impl::awaitFirstAssignment(RunState& state) {
  const auto until = clock_.now() + std::chrono::seconds(1);
  std::shared_ptr<const WorkerTask> first;  // held: a restart may replace it meanwhile
  {
    std::lock_guard lock(mutex_);
    first = slots_.front().task;
  }
  while (clock_.now() < until) {
    {
      std::lock_guard lock(mutex_);
      if (stop_deadline_) return;
    }
    {
      std::lock_guard lock(state.mutex);
      if (state.running < static_cast<int>(slots_.size())) return;  // the first task ended
    }
    if (!first->status().partitions.empty()) return;
    clock_.sleepFor(std::chrono::milliseconds(5));
  }
}

void Worker::Impl::stop() {
  std::vector<std::shared_ptr<WorkerTask>> tasks;
  Clock::time_point deadline;
  {
    std::lock_guard lock(mutex_);
    if (!stop_deadline_) stop_deadline_ = clock_.now() + settings_.shutdown_graceful_timeout;
    deadline = *stop_deadline_;
    for (const auto& slot : slots_) tasks.push_back(slot.task);
  }
  // Without the lock: a task's stop wakes its code (a source's wakeup() may reach a database
  // that stopped answering), and status() or the wait for the deadline must not wait on it.
  for (auto& task : tasks) task->stop(deadline);
}

void Worker::Impl::pause(bool paused) {
  std::lock_guard lock(mutex_);
  if (paused_ == paused) return;
  paused_ = paused;
  spdlog::info("connector {} {}", settings_.name, paused ? "paused" : "resumed");
  for (auto& slot : slots_) {
    if (paused)
      slot.task->pause();
    else
      slot.task->resume();
  }
}

ConnectorStatus Worker::Impl::status() {
  ConnectorStatus out;
  out.name = settings_.name;
  out.type = kind_.type;
  out.connector_class = settings_.connector_class;
  std::lock_guard lock(mutex_);
  for (const auto& slot : slots_) slot.task->appendStatus(out.tasks);
  return out;
}

Worker::Worker(Config config, TaskFactory factory)
    : impl_(std::make_unique<Impl>(config, sinkKind(config, std::move(factory)))) {}

Worker::Worker(Config config, SourceTaskFactory factory, const SourceCapabilities& capabilities)
    : impl_(std::make_unique<Impl>(
          config, sourceKind(config, sourceDriverFactory(std::move(factory)), capabilities))) {}

Worker::~Worker() = default;

void Worker::run() {
  impl_->run();
}
void Worker::stop() {
  impl_->stop();
}
void Worker::restartTask(int task) {
  impl_->restartTask(task);
}
void Worker::pause() {
  impl_->pause(true);
}
void Worker::resume() {
  impl_->pause(false);
}
ConnectorStatus Worker::status() const {
  return impl_->status();
}

std::map<std::string, std::chrono::steady_clock::time_point, std::less<>> Worker::activeTopics()
    const {
  return impl_->activeTopics();
}

const ConfigDef& Worker::configDef() {
  return SinkConnectorConfig::configDef();
}

const ConfigDef& Worker::sourceConfigDef() {
  return SourceConnectorConfig::configDef();
}

}  // namespace ksink
