// WorkerScenarios: the fixture of the worker behaviour tests. Each test gets its own mock cluster,
// a topic and a connector (consumer group connect-<name>) named after the test, a shared CallLog
// and a SinkScript to fill before starting workers.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/manual_clock.h"
#include "support/mock_cluster.h"
#include "support/recording_sink.h"
#include "support/worker_runner.h"

namespace ksink::test {

// Long enough for a first join (3 s on the mock) plus a rebalance on a busy 2-core machine; waits
// return as soon as their condition holds, so this bounds only failing tests.
inline constexpr milliseconds kWait{20000};

// Moves `clock` on by `by`, then waits until the task's loop, which waits on `clock` at least once
// per iteration, has begun two more waits: a whole iteration has run at the new time.
inline void advanceAndSettle(ManualClock& clock, milliseconds by) {
  clock.advance(by);
  ASSERT_TRUE(clock.awaitWaits(clock.waits() + 2, kWait)) << "the task's loop stopped waiting";
}

class WorkerScenarios : public ::testing::Test {
 protected:
  WorkerScenarios() { mock_.emplace(1); }

  // Replaces the cluster with one of `brokers` brokers; call before creating topics.
  void useBrokers(int brokers) {
    mock_.reset();
    mock_.emplace(brokers);
  }
  MockCluster& mock() { return *mock_; }

  Properties props() const { return mockWorkerProperties(name_, topic_, mock_->bootstrap()); }
  TaskFactory factory(int first_id = 0) const {
    return RecordingSink::factory(log_, script_, first_id);
  }
  std::unique_ptr<SinkTask> sink(int id = 0) const {
    return std::make_unique<RecordingSink>(id, log_, script_);
  }

  std::vector<Call> calls() const { return log_->calls(); }
  bool waitFor(const std::function<bool(const std::vector<Call>&)>& condition,
               milliseconds timeout = kWait) const {
    return log_->waitUntil(condition, timeout);
  }
  // Waits until every offset in [0, end) of `tp` was delivered by a put() that returned.
  bool waitDelivered(const TopicPartition& tp, int64_t end, milliseconds timeout = kWait) const {
    return waitFor([&](const auto& c) { return deliveredAll(c, tp, end); }, timeout);
  }
  std::optional<int64_t> waitCommitted(const TopicPartition& tp, int64_t offset,
                                       milliseconds timeout = kWait) {
    return mock_->waitForCommitted(group_, tp, offset, timeout);
  }
  OffsetMap committed(const std::vector<TopicPartition>& partitions) {
    return mock_->committed(group_, partitions);
  }

  std::optional<MockCluster> mock_;  // first member: destroyed after everything using it
  const std::string name_ = currentTestName();
  const std::string topic_ = name_;
  const std::string group_ = "connect-" + name_;
  const TopicPartition tp0_{topic_, 0};
  const TopicPartition tp1_{topic_, 1};
  std::shared_ptr<CallLog> log_ = std::make_shared<CallLog>();
  std::shared_ptr<SinkScript> script_ = std::make_shared<SinkScript>();
};

}  // namespace ksink::test
