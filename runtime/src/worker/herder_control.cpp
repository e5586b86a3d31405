// Herder: a connector's pause, resume, stop and restarts, and those of its tasks (herder.h).
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "config_topic.h"
#include "herder.h"
#include "herder_connector.h"

namespace ksink {

void Herder::pause(const std::string& name) {
  if (config_topic_) return writeTarget(name, Target::kPaused);
  retarget(name, Target::kPaused);
}

void Herder::resume(const std::string& name) {
  if (config_topic_) return writeTarget(name, Target::kRunning);
  retarget(name, Target::kRunning);
}

void Herder::retarget(const std::string& name, Target target) {
  const auto found = find(name);
  auto& c = *found;
  std::lock_guard operation(c.operation);
  std::shared_ptr<Worker> worker;
  bool started = false;
  {
    std::lock_guard lock(mutex_);
    const bool was_stopped = c.target == Target::kStopped;
    c.target = target;
    if (!was_stopped) worker = c.worker;
    started = started_;
  }
  keep(c);
  if (!worker) {
    if (started) launch(found);  // a stopped connector starts (paused, when it is paused)
  } else if (target == Target::kPaused)
    worker->pause();
  else
    worker->resume();
}

void Herder::stop(const std::string& name) {
  if (config_topic_) return writeTarget(name, Target::kStopped);
  stopHere(*find(name));
}

void Herder::stopHere(Connector& c) {
  std::lock_guard operation(c.operation);
  {
    std::lock_guard lock(mutex_);
    if (c.target == Target::kStopped) return;
    c.target = Target::kStopped;
  }
  halt(c);
  {
    std::lock_guard lock(mutex_);
    c.worker.reset();
    c.failure.clear();
  }
  keep(c);
  spdlog::info("connector {} stopped", c.name);
}

void Herder::restart(const std::string& name, bool include_tasks, bool only_failed) {
  if (auto r = refused(name))
    throw ConnectorConflict(fmt::format("Connector {} cannot be restarted: {}", name, r->reason));
  const auto found = find(name);
  if (config_topic_) {
    requireJoined();
    {
      std::lock_guard lock(mutex_);
      if (found->target == Target::kStopped)
        throw ConnectorConflict(
            fmt::format("Connector {} is stopped: resume it rather than restart it", name));
    }
    config_topic_->write({ConfigRecord::restart(name, include_tasks, only_failed)});
    return;
  }
  restartHere(found, include_tasks, only_failed);
}

void Herder::restartHere(const ConnectorPtr& found, bool include_tasks, bool only_failed) {
  auto& c = *found;
  std::lock_guard operation(c.operation);
  std::shared_ptr<Worker> worker;
  bool failed = false;
  {
    std::lock_guard lock(mutex_);
    if (c.target == Target::kStopped)
      throw ConnectorConflict(
          fmt::format("Connector {} is stopped: resume it rather than restart it", c.name));
    worker = c.worker;
    failed = !c.failure.empty();
  }
  if (failed || !worker) {
    // The connector itself failed: it starts again, its tasks with it.
    halt(c);
    launch(found);
    return;
  }
  if (!include_tasks) return;  // the connector runs: nothing of its own to restart here
  for (const auto& task : worker->status().tasks)
    if (!only_failed || task.state == "FAILED") restartTask(c, worker, task.id);
}

void Herder::restartTask(const std::string& name, int task) {
  if (refused(name)) throw NotFound(fmt::format("Task {}-{} not found", name, task));
  const auto found = find(name);
  auto& c = *found;
  std::lock_guard operation(c.operation);
  std::shared_ptr<Worker> worker;
  {
    std::lock_guard lock(mutex_);
    if (c.target == Target::kStopped || !c.failure.empty() || !c.worker)
      throw ConnectorConflict(fmt::format("Connector {} is not running", c.name));
    worker = c.worker;
  }
  restartTask(c, worker, task);
}

void Herder::restartTask(Connector& c, const std::shared_ptr<Worker>& worker, int task) {
  try {
    worker->restartTask(task);
  } catch (const std::out_of_range&) {
    throw NotFound(fmt::format("Task {}-{} not found", c.name, task));
  } catch (const std::logic_error& e) {
    throw ConnectorConflict(e.what());
  }
}
}  // namespace ksink
