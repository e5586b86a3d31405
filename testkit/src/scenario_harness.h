// ScenarioHarness: what every test-kit scenario's run has, sink or source: its ScenarioRun (the
// connector's name "<name>_<scenario>", a topic of that name, an empty directory removed after
// the run), its own embedded broker, and the failures it found, each prefixed with the scenario's
// name. SinkHarness and SourceHarness add what their kind of task needs.
//
// Thread-safety: used by the test thread; fail() may also be called from task threads.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ksink/testkit/mock_cluster.h"
#include "ksink/testkit/scenario_report.h"
#include "ksink/testkit/scenario_run.h"
#include "ksink/testkit/worker_runner.h"

namespace ksink::testkit {

// Bounds a wait for what a working task does in a few seconds (a first join on the mock takes 3 s,
// a rebalance another 3 s); it only delays a run whose task is failing.
inline constexpr std::chrono::milliseconds kScenarioWait{20000};

class ScenarioHarness {
 public:
  // `name`: the connector's under test; the run's topic is made with `partitions`.
  ScenarioHarness(const std::string& name, std::string_view scenario, int partitions);
  virtual ~ScenarioHarness();
  ScenarioHarness(const ScenarioHarness&) = delete;
  ScenarioHarness& operator=(const ScenarioHarness&) = delete;

  const ScenarioRun& run() const { return run_; }
  MockCluster& cluster() { return *cluster_; }
  const MockCluster& cluster() const { return *cluster_; }

  // Whether a call of the task failed it (threw what fails a task); the first time, a failure
  // naming the call (reportTaskFailure()).
  virtual bool taskFailed() = 0;
  // Stops `worker` and reports a failure if its run threw (the task failed) unless `may_throw`.
  void stopWorker(std::unique_ptr<WorkerRunner>& worker, bool may_throw = false);

  // Adds a failure: "[<scenario>] <message>".
  void fail(const std::string& message);
  // The scenario does not apply to this task: why.
  void skip(std::string reason) { skipped_ = std::move(reason); }
  ScenarioReport report() const;

 protected:
  // The task failed in `call`, throwing `error`: a failure the first time. Returns true.
  bool reportTaskFailure(std::string_view call, const std::string& error);

 private:
  ScenarioRun run_;
  std::optional<MockCluster> cluster_;  // destroyed after the workers (the scenarios' locals)
  mutable std::mutex mutex_;
  std::vector<std::string> failures_;
  std::string skipped_;
  std::atomic<bool> reported_task_failure_{false};
};

}  // namespace ksink::testkit
