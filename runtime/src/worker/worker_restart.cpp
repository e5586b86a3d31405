// Worker: one task restarted in its place while the others run, asked for (restartTask()) or by
// the errors.restart.* policy (worker.h, worker_impl.h).
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <stdexcept>
#include <utility>
#include <vector>

#include "worker_impl.h"

namespace ksink {

void Worker::Impl::restartTask(int id) {
  std::shared_ptr<RunState> state;
  std::shared_ptr<WorkerTask> old;
  std::thread thread;
  std::shared_ptr<WorkerTask> group;
  {
    std::lock_guard lock(mutex_);
    if (!state_ || stop_deadline_ || ended_)
      throw std::logic_error(fmt::format("connector {} is not running", settings_.name));
    if (slots_.size() == 1) group = slots_[0].task;
  }
  // The tasks the processes share: the group restarts its own.
  if (group && group->restartOwnTask(id)) return;
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

void Worker::Impl::restartFailedTasks() {
  std::vector<std::pair<int, std::string>> states;
  {
    std::lock_guard lock(mutex_);
    if (stop_deadline_ || ended_) return;
    for (size_t id = 0; id < slots_.size(); ++id)
      if (slots_[id].task)
        states.emplace_back(static_cast<int>(id), slots_[id].task->status().state);
  }
  for (const auto& [id, state] : states) {
    if (state != "FAILED") {
      restarts_policy_.running(id);
      continue;
    }
    switch (restarts_policy_.failed(id, clock_.now())) {
      case TaskRestartPolicy::Decision::kWait:
        break;
      case TaskRestartPolicy::Decision::kGiveUp:
        spdlog::error(
            "task {}-{} stays FAILED: restarted errors.restart.max.attempts={} times "
            "within errors.restart.window.ms",
            settings_.name, id, settings_.restart_max_attempts);
        break;
      case TaskRestartPolicy::Decision::kRestart:
        spdlog::warn("task {}-{} failed: restarting it (errors.restart.max.attempts)",
                     settings_.name, id);
        try {
          restartTask(id);
        } catch (const std::exception& e) {
          spdlog::error("task {}-{}: the restart failed: {}", settings_.name, id, e.what());
        }
        break;
    }
  }
}

}  // namespace ksink
