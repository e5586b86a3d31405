// Runs the worker under test on a background thread: WorkerRunner (the test kit's,
// ksink/testkit/worker_runner.h) drives the public ksink::Worker (what a user runs); TaskRunner
// drives one WorkerSinkTask directly, for tests that also read its metrics and offset ledger. Both
// stop the worker and wait for it in their destructor (and abort the test binary if it hangs there
// for a minute).
#pragma once

#include <chrono>
#include <map>
#include <memory>

#include "clock.h"
#include "ksink/testkit/worker_runner.h"
#include "offset_ledger.h"
#include "task_metrics.h"

namespace ksink {
class WorkerSinkTask;
}

namespace ksink::test {

using testkit::BackgroundRun;
using testkit::currentTestName;
using testkit::mockWorkerProperties;
using testkit::Properties;
using testkit::withDeadLetterQueue;
using testkit::WorkerRunner;

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
