// SinkHarness: one scenario's run of a SinkUnderTest. It owns the run's embedded broker, topic
// (two partitions) and directory, produces the author's records, starts workers whose tasks wrap
// the author's in the probe (sink_probe.h), and collects the scenario's failures, each prefixed
// with the scenario's name. The scenarios (sink_*_scenario.cpp) are written against it.
//
// Thread-safety: used by the test thread; fail() may also be called from task threads (a check
// after preCommit()).
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
#include "ksink/testkit/sink_under_test.h"
#include "ksink/testkit/worker_runner.h"
#include "sink_probe.h"

namespace ksink::testkit {

// Bounds a wait for what a working task does in a few seconds (a first join on the mock takes 3 s,
// a rebalance another 3 s); it only delays a run whose task is failing.
inline constexpr std::chrono::milliseconds kScenarioWait{20000};
inline constexpr int kPartitions = 2;

class SinkHarness {
 public:
  SinkHarness(const SinkUnderTest& sink, std::string_view scenario);
  ~SinkHarness();
  SinkHarness(const SinkHarness&) = delete;
  SinkHarness& operator=(const SinkHarness&) = delete;

  const SinkUnderTest& sink() const { return sink_; }
  const ScenarioRun& run() const { return run_; }
  MockCluster& cluster() { return *cluster_; }
  const std::string& group() const { return group_; }
  TopicPartition partition(int32_t p) const { return {run_.topic, p}; }
  std::vector<TopicPartition> partitions() const;
  SinkJournal& journal() { return *journal_; }
  ProbeHooks& hooks() { return *hooks_; }

  // The run's connector properties: the kit's, then the author's.
  Properties properties() const;
  // A worker with the probe around the author's tasks (hooks() as set now); stopped, and waited
  // for, when destroyed.
  std::unique_ptr<WorkerRunner> startWorker(const Properties& properties);
  std::unique_ptr<WorkerRunner> startWorker() { return startWorker(properties()); }

  // Produces `count` of the author's records to partition `p`, at its next offsets.
  void produce(int32_t p, int count);
  // Produces the author's bad record at the next offset of `p`; returns its offset.
  int64_t produceBad(int32_t p);
  int64_t produced(int32_t p) const { return produced_.at(static_cast<size_t>(p)); }
  OffsetMap producedEnds() const;

  // Waits until the group committed at least `target` for every partition in it; false (after a
  // failure naming what was committed) when it has not within kScenarioWait.
  bool waitCommitted(const OffsetMap& target, std::string_view what);
  // Waits until `condition` holds of the journal; false after a failure `what` otherwise.
  bool waitJournal(const std::function<bool(const std::vector<ProbeEvent>&)>& condition,
                   std::string_view what);
  // Stops `worker` and reports a failure if its run threw (the task failed) unless `may_throw`.
  void stopWorker(std::unique_ptr<WorkerRunner>& worker, bool may_throw = false);

  // What the destination holds now; a read that throws is a failure (and reads as nothing).
  std::vector<StoredRecord> readBack();

  // Whether a task call threw something other than RetriableError; the first time, a failure.
  bool taskFailed();

  // Adds a failure: "[<scenario>] <message>".
  void fail(const std::string& message);
  // The scenario does not apply to this task: why.
  void skip(std::string reason) { skipped_ = std::move(reason); }
  ScenarioReport report() const;

 private:
  const SinkUnderTest& sink_;
  ScenarioRun run_;
  std::string group_;
  std::optional<MockCluster> cluster_;  // destroyed after the workers
  std::shared_ptr<SinkJournal> journal_ = std::make_shared<SinkJournal>();
  std::shared_ptr<ProbeHooks> hooks_ = std::make_shared<ProbeHooks>();
  std::vector<int64_t> produced_ = std::vector<int64_t>(kPartitions, 0);
  mutable std::mutex mutex_;
  std::vector<std::string> failures_;
  std::atomic<bool> reported_task_failure_{false};
  std::string skipped_;
};

}  // namespace ksink::testkit
