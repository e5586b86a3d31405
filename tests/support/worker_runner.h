// Runs the worker under test on a background thread: WorkerRunner drives the public ksink::Worker
// (what a user runs); TaskRunner drives one WorkerSinkTask directly, for tests that also read its
// metrics and offset ledger. Both stop the worker and wait for it in their destructor (and abort
// the test binary if it hangs there for a minute).
//
// mockWorkerProperties() is the configuration every mock-cluster test starts from: the session
// timeouts the mock needs (a measured deviation of the mock) and short commit intervals so a test
// takes seconds.
#pragma once

#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "clock.h"
#include "ksink/worker.h"
#include "offset_ledger.h"
#include "task_metrics.h"

namespace ksink {
class WorkerSinkTask;
}

namespace ksink::test {

using Properties = std::map<std::string, std::string>;

// name (group connect-<name>), topics, the mock's bootstrap, offset.flush.interval.ms=500,
// offset.flush.timeout.ms=1000, task.shutdown.graceful.timeout.ms=3000, session 4000 / heartbeat
// 300.
Properties mockWorkerProperties(const std::string& name, const std::string& topics,
                                const std::string& bootstrap);
// errors.tolerance=all with a dead-letter queue `topic` (replication factor 1, as the mock has one
// broker), the errors' context in its records' headers or not.
void withDeadLetterQueue(Properties& properties, const std::string& topic,
                         bool context_headers = true);
// The running gtest's name, usable as a connector name and topic ("S06_Default...").
std::string currentTestName();

// Runs `body` on a thread and keeps what it threw.
class BackgroundRun {
 public:
  explicit BackgroundRun(std::function<void()> body);
  ~BackgroundRun();  // joins
  BackgroundRun(const BackgroundRun&) = delete;
  BackgroundRun& operator=(const BackgroundRun&) = delete;

  // True when the body returned (or threw) within `timeout`.
  bool waitFinished(std::chrono::milliseconds timeout);
  bool finished() const;
  // What the body threw (nullptr if it returned normally or is still running).
  std::exception_ptr error() const;
  // error()'s message, "" when there is none.
  std::string errorMessage() const;

 private:
  mutable std::mutex mutex_;
  std::condition_variable done_changed_;
  bool done_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

class WorkerRunner {
 public:
  WorkerRunner(const Properties& properties, TaskFactory factory);
  ~WorkerRunner();

  void stop() { worker_.stop(); }
  Worker& worker() { return worker_; }
  // Worker::stop(), then the time until run() returned; nullopt when it did not within `timeout`.
  std::optional<std::chrono::milliseconds> stopAndMeasure(std::chrono::milliseconds timeout);
  BackgroundRun& run() { return *run_; }

 private:
  Worker worker_;
  std::unique_ptr<BackgroundRun> run_;
};

class TaskRunner {
 public:
  // `clock`: the task's time (and the stop deadline's); it must outlive the runner.
  TaskRunner(const Properties& properties, std::unique_ptr<SinkTask> task,
             const ksink::Clock& clock = ksink::Clock::steady());
  ~TaskRunner();

  // Graceful stop with task.shutdown.graceful.timeout.ms from the properties.
  void stop();
  BackgroundRun& run() { return *run_; }
  const TaskMetrics& metrics() const;
  std::map<TopicPartition, PartitionOffsets> ledger() const;

 private:
  const ksink::Clock& clock_;
  std::chrono::milliseconds graceful_timeout_;
  std::shared_ptr<WorkerSinkTask> task_;
  std::unique_ptr<BackgroundRun> run_;
};

}  // namespace ksink::test
