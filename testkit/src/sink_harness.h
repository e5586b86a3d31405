// SinkHarness: one scenario's run of a SinkUnderTest: a ScenarioHarness (broker, topic of two
// partitions, directory, failures) that produces the author's records and starts workers whose
// tasks wrap the author's in the probe (sink_probe.h). The scenarios (sink_*_scenarios.cpp) are
// written against it.
//
// Thread-safety: used by the test thread; fail() may also be called from task threads (a check
// after preCommit()).
#pragma once

#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "ksink/testkit/sink_under_test.h"
#include "ksink/testkit/worker_runner.h"
#include "scenario_harness.h"
#include "sink_probe.h"

namespace ksink::testkit {

inline constexpr int kPartitions = 2;

class SinkHarness : public ScenarioHarness {
 public:
  SinkHarness(const SinkUnderTest& sink, std::string_view scenario);

  const SinkUnderTest& sink() const { return sink_; }
  const std::string& group() const { return group_; }
  TopicPartition partition(int32_t p) const { return {run().topic, p}; }
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

  // What the destination holds now; a read that throws is a failure (and reads as nothing).
  std::vector<StoredRecord> readBack();

  bool taskFailed() override;
  // Task `task` is a zombie the scenario made: its failures (a fenced write) are expected.
  void markZombie(int task) { zombies_.insert(task); }

 private:
  const SinkUnderTest& sink_;
  std::string group_;
  std::shared_ptr<SinkJournal> journal_ = std::make_shared<SinkJournal>();
  std::shared_ptr<ProbeHooks> hooks_ = std::make_shared<ProbeHooks>();
  std::vector<int64_t> produced_ = std::vector<int64_t>(kPartitions, 0);
  std::set<int> zombies_;  // the test thread's
};

}  // namespace ksink::testkit
