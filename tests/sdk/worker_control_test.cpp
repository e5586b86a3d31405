// A running connector controlled as Connect's REST API controls one, on the embedded broker: one
// task restarted while the others run (Worker::restartTask: POST /connectors/{c}/tasks/{t}/restart)
// and the connector paused and resumed (Worker::pause/resume: PUT /connectors/{c}/pause|resume) —
// which SinkTasks were stopped and started, what put() got (the call log), what was committed,
// what /status showed, and the refusals.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <thread>

#include "support/mock_cluster.h"
#include "support/polling.h"
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

std::vector<std::string> taskStates(Worker& worker) {
  std::vector<std::string> out;
  for (const auto& t : worker.status().tasks) out.push_back(t.state);
  return out;
}

TEST(WorkerPause, APausedSinkConnectorPutsNothingNewKeepsItsCommitsAndResumesWhereItStopped) {
  MockCluster mock;
  const auto name = currentTestName();
  mock.createTopic(name, 2);
  mock.produceValues(name, 0, 5);
  mock.produceValues(name, 1, 5);
  auto props = mockWorkerProperties(name, name, mock.bootstrap());
  props["tasks.max"] = "2";
  auto log = std::make_shared<CallLog>();
  WorkerRunner runner(props, RecordingSink::factory(log, std::make_shared<SinkScript>()));
  EXPECT_EQ(mock.waitForCommitted("connect-" + name, {name, 0}, 5, 30s), 5);
  EXPECT_EQ(mock.waitForCommitted("connect-" + name, {name, 1}, 5, 30s), 5);

  runner.worker().pause();
  ASSERT_TRUE(it::waitUntil(
      [&] {
        return taskStates(runner.worker()) == std::vector<std::string>{"PAUSED", "PAUSED"};
      },
      10s, 20ms))
      << fmt::format("{}", fmt::join(taskStates(runner.worker()), ","));
  // A paused task goes on iterating, put() called with nothing: the puts that began after two
  // of its iterations saw the pause are the paused ones.
  auto putsSince = [](const std::vector<Call>& calls, Clock::time_point since, int task) {
    std::vector<Call> out;
    for (const auto& c : select(calls, CallKind::kPut, task))
      if (c.at >= since) out.push_back(c);
    return out;
  };
  const auto paused_at = log->now();
  ASSERT_TRUE(log->waitUntil(
      [&](const auto& calls) {
        return putsSince(calls, paused_at, 0).size() >= 2 &&
               putsSince(calls, paused_at, 1).size() >= 2;
      },
      30s));
  const auto produced_at = log->now();
  mock.produceValues(name, 0, 5, "w", 5);
  mock.produceValues(name, 1, 5, "w", 5);
  ASSERT_TRUE(log->waitUntil(
      [&](const auto& calls) {
        return putsSince(calls, produced_at, 0).size() >= 3 &&
               putsSince(calls, produced_at, 1).size() >= 3;
      },
      30s));
  for (int task : {0, 1})
    for (const auto& put : putsSince(log->calls(), produced_at, task))
      EXPECT_TRUE(put.records.empty()) << "a paused task got records: " << describe(put);
  EXPECT_FALSE(hasCall(log->calls(), CallKind::kStop, 0));

  runner.worker().resume();
  EXPECT_EQ(mock.waitForCommitted("connect-" + name, {name, 0}, 10, 30s), 10);
  EXPECT_EQ(mock.waitForCommitted("connect-" + name, {name, 1}, 10, 30s), 10);
  EXPECT_TRUE(deliveredAll(log->calls(), {name, 0}, 10));
  EXPECT_TRUE(deliveredAll(log->calls(), {name, 1}, 10));
  EXPECT_EQ(taskStates(runner.worker()), (std::vector<std::string>{"RUNNING", "RUNNING"}));
}

}  // namespace
}  // namespace ksink::test
