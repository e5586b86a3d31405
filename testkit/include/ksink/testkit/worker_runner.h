// Runs a ksink::Worker on a background thread, the way the test kit's scenarios (and ksink's own
// worker tests) drive a connector: WorkerRunner starts Worker::run() at construction and stops it
// and waits for it in its destructor (aborting the test binary if it hangs there for a minute);
// BackgroundRun is the thread, which keeps what the body threw.
//
// mockWorkerProperties() is the configuration every run on the embedded broker starts from: the
// session timeouts the mock needs (a measured deviation of the mock) and short commit intervals,
// so a scenario takes seconds.
//
// Thread-safety: a runner is owned by one test thread; BackgroundRun's queries may be made from
// any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "ksink/sink_task.h"
#include "ksink/source_task.h"
#include "ksink/worker.h"

namespace ksink::testkit {

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

// Waits for `run` to end after a stop; aborts the process (naming `what`) when it has not within a
// minute: a hung worker would otherwise leave ctest waiting for its own timeout.
void awaitEnd(BackgroundRun& run, const char* what);

class WorkerRunner {
 public:
  // A sink connector: `config` is validated by the Worker (its definitions: the task's keys).
  WorkerRunner(const Config& config, TaskFactory factory);
  WorkerRunner(const Properties& properties, TaskFactory factory);
  // A source connector: `config` is validated by the Worker against the source connector's keys
  // and its definitions (the task's keys).
  WorkerRunner(const Config& config, SourceTaskFactory factory);
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

}  // namespace ksink::testkit
