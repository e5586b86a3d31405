// A running connector controlled as Connect's REST API controls one, on the embedded broker: one
// task restarted while the others run (Worker::restartTask: POST /connectors/{c}/tasks/{t}/restart)
// and the connector paused and resumed (Worker::pause/resume: PUT /connectors/{c}/pause|resume) —
// which SinkTasks were stopped and started, what put() got (the call log), what was committed,
// what /status showed, and the refusals; and the two together (a restart while paused).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <atomic>
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

std::vector<std::string> taskStates(Worker& worker) {
  std::vector<std::string> out;
  for (const auto& t : worker.status().tasks) out.push_back(t.state);
  return out;
}

// The put() calls of log id `task` that began at `since` or later.
std::vector<Call> putsSince(const std::vector<Call>& calls, Clock::time_point since, int task) {
  std::vector<Call> out;
  for (const auto& c : select(calls, CallKind::kPut, task))
    if (c.at >= since) out.push_back(c);
  return out;
}

// A sink connector of two tasks on a topic of two partitions, `records` in each, all committed.
class WorkerControl : public ::testing::Test {
 protected:
  void startTwoTasks(int records) {
    mock.createTopic(name, 2);
    mock.produceValues(name, 0, records);
    mock.produceValues(name, 1, records);
    auto props = mockWorkerProperties(name, name, mock.bootstrap());
    props["tasks.max"] = "2";
    runner = std::make_unique<WorkerRunner>(
        props, RecordingSink::factory(log, std::make_shared<SinkScript>()));
    ASSERT_TRUE(log->waitUntil(
        [](const auto& calls) {
          return hasCall(calls, CallKind::kOpen, 0) && hasCall(calls, CallKind::kOpen, 1);
        },
        30s))
        << describe(log->calls());
    expectCommitted(records);
  }
  void expectCommitted(int64_t offset) {
    EXPECT_EQ(mock.waitForCommitted("connect-" + name, {name, 0}, offset, 30s), offset);
    EXPECT_EQ(mock.waitForCommitted("connect-" + name, {name, 1}, offset, 30s), offset);
  }
  // Both tasks shown PAUSED, or both RUNNING.
  void expectStates(const std::string& state) {
    EXPECT_TRUE(it::waitUntil(
        [&] {
          return taskStates(runner->worker()) == std::vector<std::string>{state, state};
        },
        10s, 20ms))
        << fmt::format("{}", fmt::join(taskStates(runner->worker()), ","));
  }
  // Records produced while the tasks of log ids `tasks` are paused reach none of their put()s:
  // after two put()s of each that began once the pause was applied, the records are produced,
  // and three put()s of each later every one of them came empty.
  void expectPausedPutsEmpty(std::vector<int> tasks, int from) {
    auto enough = [&](Clock::time_point since, size_t count) {
      return [&tasks, since, count](const std::vector<Call>& calls) {
        for (int task : tasks)
          if (putsSince(calls, since, task).size() < count) return false;
        return true;
      };
    };
    ASSERT_TRUE(log->waitUntil(enough(log->now(), 2), 30s));
    const auto produced_at = log->now();
    mock.produceValues(name, 0, 5, "w", from);
    mock.produceValues(name, 1, 5, "w", from);
    ASSERT_TRUE(log->waitUntil(enough(produced_at, 3), 30s));
    for (int task : tasks)
      for (const auto& put : putsSince(log->calls(), produced_at, task))
        EXPECT_TRUE(put.records.empty()) << "a paused task got records: " << describe(put);
  }

  MockCluster mock;
  const std::string name = currentTestName();
  std::shared_ptr<CallLog> log = std::make_shared<CallLog>();
  std::unique_ptr<WorkerRunner> runner;
};

TEST_F(WorkerControl, ARestartedTaskIsReplacedWhileTheOtherRunsAndNoRecordIsLost) {
  ASSERT_NO_FATAL_FAILURE(startTwoTasks(10));
  runner->worker().restartTask(1);
  // The factory's third task (log id 2) took task 1's place; task 0 was never stopped.
  ASSERT_TRUE(
      log->waitUntil([](const auto& calls) { return hasCall(calls, CallKind::kStart, 2); }, 30s));
  const auto calls = log->calls();
  EXPECT_EQ(select(calls, CallKind::kStop, 1).size(), 1u) << describe(calls);
  EXPECT_FALSE(hasCall(calls, CallKind::kStop, 0)) << describe(calls);
  EXPECT_FALSE(runner->run().finished()) << runner->run().errorMessage();

  mock.produceValues(name, 0, 10, "w", 10);
  mock.produceValues(name, 1, 10, "w", 10);
  expectCommitted(20);
  const auto after = log->calls();
  EXPECT_TRUE(deliveredAll(after, {name, 0}, 20)) << describe(after);
  EXPECT_TRUE(deliveredAll(after, {name, 1}, 20)) << describe(after);
  EXPECT_TRUE(hasCall(after, CallKind::kOpen, 2)) << "the new task got no partition";
  EXPECT_EQ(runner->worker().status().tasks.size(), 2u);

  EXPECT_THROW(runner->worker().restartTask(2), std::out_of_range);
  runner->stop();
  ASSERT_TRUE(runner->run().waitFinished(30s));
  EXPECT_EQ(runner->run().errorMessage(), "");
  EXPECT_THROW(runner->worker().restartTask(0), std::logic_error) << "a stopped connector";
}

TEST_F(WorkerControl, APausedSinkConnectorPutsNothingNewKeepsItsCommitsAndResumesWhereItStopped) {
  ASSERT_NO_FATAL_FAILURE(startTwoTasks(5));
  runner->worker().pause();
  expectStates("PAUSED");
  // A paused task goes on iterating, put() called with nothing.
  ASSERT_NO_FATAL_FAILURE(expectPausedPutsEmpty({0, 1}, 5));
  EXPECT_FALSE(hasCall(log->calls(), CallKind::kStop, 0));

  runner->worker().resume();
  expectCommitted(10);
  EXPECT_TRUE(deliveredAll(log->calls(), {name, 0}, 10));
  EXPECT_TRUE(deliveredAll(log->calls(), {name, 1}, 10));
  expectStates("RUNNING");
}

// A task restarted while its connector is paused starts paused: it takes its partitions and puts
// nothing until the connector resumes.
TEST_F(WorkerControl, ATaskRestartedWhileItsConnectorIsPausedStartsPaused) {
  ASSERT_NO_FATAL_FAILURE(startTwoTasks(5));
  runner->worker().pause();
  runner->worker().restartTask(1);
  ASSERT_TRUE(
      log->waitUntil([](const auto& calls) { return hasCall(calls, CallKind::kOpen, 2); }, 30s))
      << "the new task got no partition";
  expectStates("PAUSED");
  ASSERT_NO_FATAL_FAILURE(expectPausedPutsEmpty({0, 2}, 5));

  runner->worker().resume();
  expectCommitted(10);
  EXPECT_TRUE(deliveredAll(log->calls(), {name, 1}, 10)) << describe(log->calls());
  expectStates("RUNNING");
}

// errors.restart.* (ksink's): a task whose put() fails is restarted by itself after the backoff,
// twice here (the second twice as late), and the third one writes every record; failing once more
// within the window, with its two attempts spent, it stays FAILED.
TEST_F(WorkerControl, AFailedTaskIsRestartedByItselfUpToMaxAttemptsThenStaysFailed) {
  mock.createTopic(name, 1);
  mock.produceValues(name, 0, 5);
  auto failures = std::make_shared<std::atomic<int>>(0);
  auto script = std::make_shared<SinkScript>();
  script->onPut([failures](SinkTaskContext&, std::span<const SinkRecord> records) {
    if (records.empty()) return;
    if (failures->load() < 2 || records.back().offset() >= 5) {
      ++*failures;
      throw std::runtime_error("write failed");
    }
  });
  auto props = mockWorkerProperties(name, name, mock.bootstrap());
  props["exit.on.task.failure"] = "false";
  props["errors.restart.max.attempts"] = "2";
  props["errors.restart.backoff.ms"] = "200";
  runner = std::make_unique<WorkerRunner>(props, RecordingSink::factory(log, script));
  EXPECT_EQ(mock.waitForCommitted("connect-" + name, {name, 0}, 5, 30s), 5);
  auto starts = select(log->calls(), CallKind::kStart);
  ASSERT_EQ(starts.size(), 3u) << describe(log->calls());
  std::vector<Call> failed;
  for (const auto& c : select(log->calls(), CallKind::kPut))
    if (c.threw) failed.push_back(c);
  ASSERT_EQ(failed.size(), 2u) << describe(log->calls());
  EXPECT_GE(starts[1].at - failed[0].at, 200ms) << "the first restart waits the backoff";
  EXPECT_GE(starts[2].at - failed[1].at, 400ms) << "the second waits twice as long";
  EXPECT_EQ(taskStates(runner->worker()), std::vector<std::string>{"RUNNING"});

  mock.produceValues(name, 0, 1, "v", 5);
  EXPECT_TRUE(it::waitUntil(
      [&] { return taskStates(runner->worker()) == std::vector<std::string>{"FAILED"}; }, 30s));
  std::this_thread::sleep_for(1s);  // past the backoff a third restart would wait: none comes
  EXPECT_EQ(select(log->calls(), CallKind::kStart).size(), 3u) << describe(log->calls());
  EXPECT_EQ(taskStates(runner->worker()), std::vector<std::string>{"FAILED"});
}

}  // namespace
}  // namespace ksink::test
