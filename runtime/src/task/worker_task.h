// WorkerTask: one task's lifecycle, whatever its kind (Kafka Connect's WorkerTask) —
// WorkerSinkTask, WorkerSourceTask, ExactlyOnceSourceTask, and TaskGroup (the tasks a
// process runs of a connector whose processes share them), which the Worker and the status server
// treat alike.
//
// The base owns what every kind does the same way: run() starts the task, turns its loop until a
// stop is asked for or a step throws, and tears it down; a graceful stop with its deadline (the
// first asked for stays; task.shutdown.graceful.timeout.ms from the end of the loop when none was
// asked for: the task failed), a cancel when that deadline ran out (the teardown skips the final
// commit), the connector's pause, and the status /status and /metrics show: UNASSIGNED, RUNNING
// once started (PAUSED while paused), then FAILED with the failure's message, or STOPPED. A kind
// supplies its steps (start, iteration, finish) and, where it must react at once, hooks for a stop,
// a cancel and a pause.
//
// run() is called on the task's own thread and holds it until the task ends; stop(), cancel(),
// pause(), resume(), id() and status() may be called from any thread.
#pragma once

#include <chrono>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "active_topics.h"
#include "clock.h"
#include "ksink/connector_status.h"
#include "log_context.h"
#include "published_status.h"
#include "task_pause.h"
#include "task_progress.h"
#include "task_stop.h"

namespace ksink {

class WorkerTask {
 public:
  virtual ~WorkerTask() = default;
  WorkerTask(const WorkerTask&) = delete;
  WorkerTask& operator=(const WorkerTask&) = delete;

  // Runs the task until stop() or a fatal error; rethrows the task's fatal error (that of a
  // step, else the teardown's).
  void run();
  // Graceful stop: the loop ends after the current step; the final commit and the teardown must
  // be done by `deadline`.
  void stop(Clock::time_point deadline);
  // The graceful stop ran out of time: skip the final commit (the teardown still runs).
  void cancel();
  // The connector paused (see task_pause.h) or resumed; before run() too.
  void pause();
  void resume();

  int id() const { return id_; }
  // Where the task marks the topics it uses: its connector's (Worker), across task restarts.
  // Before run().
  void shareTopics(std::shared_ptr<ActiveTopics> topics) { topics_ = std::move(topics); }
  // What /status and /metrics show of the task.
  virtual TaskStatus status() const;
  // The statuses it stands for: its own, or those of the tasks it runs (a TaskGroup).
  virtual void appendStatus(std::vector<TaskStatus>& out) const { out.push_back(status()); }
  // Of the tasks it runs (a TaskGroup): task `id` stopped and started again in place, soon,
  // on the task's thread; true once asked. False for a task that runs no others. Throws
  // std::out_of_range when `id` does not run here.
  virtual bool restartOwnTask(int /*id*/) { return false; }

 protected:
  // `name`: how logs name it ("source task <connector>-<id>"); `connector`: the connector it
  // works for, which every log line of its thread names (log_context.h; a negative id: the
  // connector's own, not a task's); `graceful_timeout`: the teardown's time when the task ends by
  // itself; `stall_after`: no progress for this long with work to do is
  // shown as a stall (TaskProgress).
  WorkerTask(int id, std::string name, std::string connector, const Clock& clock,
             std::chrono::milliseconds graceful_timeout, std::chrono::milliseconds stall_after);

  // The kind's steps, on the task's thread. start(): up to the task running (it may return early
  // once a stop was asked for); iteration(): one turn of the loop; finish(): the teardown, by
  // `deadline`, given the failure of a step (null when it stopped as asked) — returns the task's
  // failure: that one, else one of the teardown.
  virtual void start() = 0;
  virtual void iteration() = 0;
  virtual std::exception_ptr finish(std::exception_ptr failure, Clock::time_point deadline) = 0;

  // Hooks, on the calling thread, after the base recorded the request: a blocking call of the
  // task's to wake, the tasks a group runs to forward it to.
  virtual void onStop(Clock::time_point /*deadline*/) {}
  virtual void onCancel() {}
  virtual void onPause(bool /*paused*/) {}

  const std::string& name() const { return name_; }
  // What this task's log lines name: for a thread the task starts for itself (log_context.h).
  const LogContext& logContext() const { return log_context_; }
  // The counters /status shows; the state and the error are the base's.
  void publishCounters(const TaskCounters& counters) { published_.publish(counters); }

  const Clock& clock_;
  TaskStop stop_;
  TaskPause pause_;
  PublishedStatus published_;
  TaskProgress progress_;
  // The connector's, once shareTopics() was called; the task's own until then.
  std::shared_ptr<ActiveTopics> topics_ = std::make_shared<ActiveTopics>();

 private:
  const int id_;
  const std::string name_;
  const LogContext log_context_;
  const std::chrono::milliseconds graceful_timeout_;
};

}  // namespace ksink
