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
#include "worker_run_state.h"

namespace ksink {

class Worker::Impl {
 public:
  Impl(Config config, TaskKind kind)
      : settings_(WorkerConfig::parse(config)),
        config_(std::move(config)),
        kind_(std::move(kind)) {}

  void run();
  void stop();
  void restartTask(int id);
  void pause(bool paused);
  ConnectorStatus status();
  std::map<std::string, std::chrono::steady_clock::time_point, std::less<>> activeTopics() const {
    return topics_->get();
  }

 private:
  // One task of the connector and the thread running it.
  struct Slot {
    std::shared_ptr<WorkerTask> task;
    std::thread thread;
  };

  // Makes the tasks and starts their threads; false when a stop came first.
  bool startTasks(const std::shared_ptr<RunState>& state);
  void awaitFirstAssignment(RunState& state);
  // Until every task ended, stopping the others when one failed and giving up on those still
  // running past the stop's deadline (their number).
  int awaitTasks(RunState& state);
  // Stops `old` by `deadline` (cancelled past it) and waits for its thread: false when it was
  // abandoned.
  bool stopReplaced(RunState& state, WorkerTask& old, std::thread& thread,
                    Clock::time_point deadline);

  const WorkerConfig settings_;
  const Config config_;
  TaskKind kind_;
  // The stop deadline, the wait for it, and the wait for the first task's partitions.
  const Clock& clock_ = Clock::steady();
  std::mutex mutex_;  // guards slots_, state_, stop_deadline_, restarts_, paused_, ended_
  std::condition_variable restarts_changed_;
  std::vector<Slot> slots_;
  std::shared_ptr<RunState> state_;  // the running tasks' (null until they start)
  std::optional<Clock::time_point> stop_deadline_;
  std::set<int> restarts_;  // tasks being restarted
  bool paused_ = false;     // the connector's target state: its tasks, new ones too, paused
  bool ended_ = false;      // every task ended (run() is returning)
  // The topics the tasks used, across their restarts.
  const std::shared_ptr<ActiveTopics> topics_ = std::make_shared<ActiveTopics>();
};

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

void Worker::Impl::restartTask(int id) {
  std::shared_ptr<RunState> state;
  std::shared_ptr<WorkerTask> old;
  std::thread thread;
  {
    std::lock_guard lock(mutex_);
    if (!state_ || stop_deadline_ || ended_)
      throw std::logic_error(fmt::format("connector {} is not running", settings_.name));
    if (id < 0 || static_cast<size_t>(id) >= slots_.size())
      throw std::out_of_range(fmt::format("connector {} has no task {} (it runs {})",
                                          settings_.name, id, slots_.size()));
    if (restarts_.contains(id))
      throw std::logic_error(
          fmt::format("task {} of connector {} is restarting already", id, settings_.name));
    if (!slots_[static_cast<size_t>(id)].thread.joinable())
      throw std::logic_error(
          fmt::format("task {} of connector {} was abandoned", id, settings_.name));
    restarts_.insert(id);
    state = state_;
    old = slots_[static_cast<size_t>(id)].task;
    thread = std::move(slots_[static_cast<size_t>(id)].thread);
  }
  auto done = [&] {
    std::lock_guard lock(mutex_);
    restarts_.erase(id);
    restarts_changed_.notify_all();
  };
  bool ended = false;
  {
    // The replacement counts from now: run() keeps waiting while the old one ends.
    std::lock_guard lock(state->mutex);
    ended = state->ended.contains(old.get());
    state->replaced.insert(old.get());
    ++state->running;
  }
  spdlog::info("task {}-{}: restarting", settings_.name, id);
  // A task that ended (it failed, say) is only replaced.
  bool stopped = true;
  if (ended)
    thread.join();
  else
    stopped =
        stopReplaced(*state, *old, thread, clock_.now() + settings_.shutdown_graceful_timeout);
  std::shared_ptr<WorkerTask> fresh;
  std::exception_ptr failure;
  try {
    if (!stopped)
      throw std::runtime_error(fmt::format(
          "task {} did not stop within task.shutdown.graceful.timeout.ms for its restart and was "
          "abandoned",
          id));
    fresh = kind_.make(id, clock_);
    fresh->shareTopics(topics_);
  } catch (...) {
    failure = std::current_exception();
  }
  bool launched = false;
  {
    std::lock_guard lock(mutex_);
    if (fresh && !stop_deadline_ && !ended_) {
      if (paused_) fresh->pause();
      slots_[static_cast<size_t>(id)].task = fresh;
      slots_[static_cast<size_t>(id)].thread = launch(state, fresh);
      launched = true;
    }
  }
  {
    // Never under mutex_: the task threads' state is locked before it (awaitTasks).
    std::lock_guard lock(state->mutex);
    state->replaced.erase(old.get());
    state->ended.erase(old.get());
    if (!launched) {
      // A restart that could not start its task fails the connector as a task failure does.
      if (failure && !state->first_failure) state->first_failure = failure;
      --state->running;
      state->changed.notify_all();
    }
  }
  done();
  if (failure) std::rethrow_exception(failure);
}

bool Worker::Impl::stopReplaced(RunState& state, WorkerTask& old, std::thread& thread,
                                Clock::time_point deadline) {
  old.stop(deadline);
  std::unique_lock lock(state.mutex);
  const bool ended =
      clock_.sleepUntil(lock, state.changed, deadline + std::chrono::milliseconds(500),
                        [&] { return state.ended.contains(&old); });
  lock.unlock();
  if (ended) {
    thread.join();
    return true;
  }
  spdlog::error(
      "task {}-{} did not stop for its restart within task.shutdown.graceful.timeout.ms; "
      "abandoning it",
      settings_.name, old.id());
  old.cancel();
  thread.detach();  // the thread owns its task through shared_ptr
  return false;
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
