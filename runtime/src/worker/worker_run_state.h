// RunState: what a Worker's run(), its restartTask() and its tasks' threads share — the threads
// may outlive run() when a stop times out — and launch(), which runs a task on a thread that
// reports its end there. Private to worker.cpp.
#pragma once

#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "worker_task.h"

namespace ksink {

struct RunState {
  std::mutex mutex;
  std::condition_variable changed;
  int running = 0;  // threads running, and replacements a restart is about to start
  std::exception_ptr first_failure;
  std::set<const WorkerTask*> replaced;  // stopped by a restart: their end is no failure
  std::set<const WorkerTask*> ended;     // the tasks (of the slots) whose thread has ended
};

// Runs `task` on a new thread, which reports its end to `state`.
inline std::thread launch(std::shared_ptr<RunState> state, std::shared_ptr<WorkerTask> task) {
  return std::thread([task = std::move(task), state = std::move(state)] {
    std::exception_ptr failure;
    try {
      task->run();
    } catch (...) {
      failure = std::current_exception();
    }
    std::lock_guard lock(state->mutex);
    state->ended.insert(task.get());
    if (failure && !state->replaced.contains(task.get()) && !state->first_failure)
      state->first_failure = failure;
    --state->running;
    state->changed.notify_all();
  });
}

}  // namespace ksink
