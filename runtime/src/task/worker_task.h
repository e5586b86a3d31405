// WorkerTask: what a Worker, /status and /metrics need of one task, whatever its kind — the task
// thread's loop, a bounded stop, a pause, and a status snapshot: WorkerSinkTask, WorkerSourceTask,
// ExactlyOnceSourceTask, and SourceTaskGroup (the tasks a process runs of a connector whose
// processes share them), which the Worker and the status server treat alike.
//
// run() is called on the task's own thread and holds it until the task ends; stop(), cancel(),
// pause(), resume(), id() and status() may be called from any thread.
#pragma once

#include <vector>

#include "clock.h"
#include "ksink/connector_status.h"

namespace ksink {

class WorkerTask {
 public:
  virtual ~WorkerTask() = default;

  // Runs the task until stop() or a fatal error; rethrows the task's fatal error.
  virtual void run() = 0;
  // Graceful stop: the loop ends after the current step; the final commit and the teardown must
  // be done by `deadline`.
  virtual void stop(Clock::time_point deadline) = 0;
  // The graceful stop ran out of time: skip the final commit (the teardown still runs).
  virtual void cancel() = 0;
  // The connector paused (see task_pause.h) or resumed; before run() too.
  virtual void pause() = 0;
  virtual void resume() = 0;

  virtual int id() const = 0;
  // What /status and /metrics show of the task.
  virtual TaskStatus status() const = 0;
  // The statuses it stands for: its own, or those of the tasks it runs (a SourceTaskGroup).
  virtual void appendStatus(std::vector<TaskStatus>& out) const { out.push_back(status()); }
};

}  // namespace ksink
