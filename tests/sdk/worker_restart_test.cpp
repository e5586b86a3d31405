// Restarting one task while the others run (Worker::restartTask, what Connect's
// POST /connectors/{c}/tasks/{t}/restart does), on the embedded broker: which SinkTasks were
// stopped and started (the call log), what was delivered and committed, and the refusals.
#include <gtest/gtest.h>

#include <stdexcept>

#include "support/mock_cluster.h"
#include "support/recording_sink.h"
#include "support/worker_runner.h"

namespace ksink::test {
namespace {

using namespace std::chrono_literals;

bool hasCall(const std::vector<Call>& calls, CallKind kind, int task) {
  return !select(calls, kind, task).empty();
}

TEST(WorkerRestart, ARestartedTaskIsReplacedWhileTheOtherRunsAndNoRecordIsLost) {
  MockCluster mock;
  const auto name = currentTestName();
  mock.createTopic(name, 2);
  mock.produceValues(name, 0, 10);
  mock.produceValues(name, 1, 10);
  auto props = mockWorkerProperties(name, name, mock.bootstrap());
  props["tasks.max"] = "2";
  auto log = std::make_shared<CallLog>();
  WorkerRunner runner(props, RecordingSink::factory(log, std::make_shared<SinkScript>()));
  ASSERT_TRUE(log->waitUntil(
      [](const auto& calls) {
        return hasCall(calls, CallKind::kOpen, 0) && hasCall(calls, CallKind::kOpen, 1);
      },
      30s))
      << describe(log->calls());
  EXPECT_EQ(mock.waitForCommitted("connect-" + name, {name, 0}, 10, 30s), 10);
  EXPECT_EQ(mock.waitForCommitted("connect-" + name, {name, 1}, 10, 30s), 10);

  runner.worker().restartTask(1);
  // The factory's third task (log id 2) took task 1's place; task 0 was never stopped.
  ASSERT_TRUE(
      log->waitUntil([](const auto& calls) { return hasCall(calls, CallKind::kStart, 2); }, 30s));
  const auto calls = log->calls();
  EXPECT_EQ(select(calls, CallKind::kStop, 1).size(), 1u) << describe(calls);
  EXPECT_FALSE(hasCall(calls, CallKind::kStop, 0)) << describe(calls);
  EXPECT_FALSE(runner.run().finished()) << runner.run().errorMessage();

  mock.produceValues(name, 0, 10, "w", 10);
  mock.produceValues(name, 1, 10, "w", 10);
  EXPECT_EQ(mock.waitForCommitted("connect-" + name, {name, 0}, 20, 30s), 20);
  EXPECT_EQ(mock.waitForCommitted("connect-" + name, {name, 1}, 20, 30s), 20);
  const auto after = log->calls();
  EXPECT_TRUE(deliveredAll(after, {name, 0}, 20)) << describe(after);
  EXPECT_TRUE(deliveredAll(after, {name, 1}, 20)) << describe(after);
  EXPECT_TRUE(hasCall(after, CallKind::kOpen, 2)) << "the new task got no partition";
  EXPECT_EQ(runner.worker().status().tasks.size(), 2u);

  EXPECT_THROW(runner.worker().restartTask(2), std::out_of_range);
  runner.stop();
  ASSERT_TRUE(runner.run().waitFinished(30s));
  EXPECT_EQ(runner.run().errorMessage(), "");
  EXPECT_THROW(runner.worker().restartTask(0), std::logic_error) << "a stopped connector";
}

}  // namespace
}  // namespace ksink::test
