// Worker::Impl: the Worker's state and steps (worker.h), shared by worker.cpp (running and
// stopping the tasks) and worker_restart.cpp (restarting one in its place). Private to those files.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "active_topics.h"
#include "clock.h"
#include "ksink/config.h"
#include "ksink/worker.h"
#include "task_kind.h"
#include "task_restart_policy.h"
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
  // errors.restart.*: the failed tasks whose restart is due, restarted.
  void restartFailedTasks();
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
  // errors.restart.*, on run()'s thread.
  TaskRestartPolicy restarts_policy_{settings_.restart_max_attempts, settings_.restart_backoff,
                                     settings_.restart_window};
};

}  // namespace ksink
