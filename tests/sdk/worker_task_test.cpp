// WorkerTask, the lifecycle under every task kind: the order of a kind's steps, the state /status
// shows at each, the deadline the teardown gets, and the hooks a stop, a cancel and a pause reach.
#include "worker_task.h"

#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "manual_clock.h"

namespace ksink {
namespace {

using namespace std::chrono_literals;

// A kind that records its steps and hooks; `turns` iterations, then it stops itself (or fails).
class RecordingTask final : public WorkerTask {
 public:
  RecordingTask(const Clock& clock, int turns, bool fail_at_end = false)
      : WorkerTask(7, "test task t-7", "t", clock, 3000ms, 60000ms),
        turns_(turns),
        fail_at_end_(fail_at_end) {}

  std::vector<std::string> calls;
  std::vector<std::string> states;  // status().state at each step
  std::exception_ptr finish_got;
  Clock::time_point finish_deadline{};
  std::function<void()> in_start;

 private:
  void start() override {
    calls.push_back("start");
    states.push_back(status().state);
    if (in_start) in_start();
  }
  void iteration() override {
    calls.push_back("iteration");
    states.push_back(status().state);
    if (--turns_ > 0) return;
    if (fail_at_end_) throw std::runtime_error("the destination refused it");
    stop(clock_.now() + 1000ms);
  }
  std::exception_ptr finish(std::exception_ptr failure, Clock::time_point deadline) override {
    calls.push_back("finish");
    states.push_back(status().state);
    finish_got = failure;
    finish_deadline = deadline;
    return failure;
  }
  void onStop(Clock::time_point) override { calls.push_back("onStop"); }
  void onCancel() override { calls.push_back("onCancel"); }
  void onPause(bool paused) override { calls.push_back(paused ? "onPause" : "onResume"); }

  int turns_;
  const bool fail_at_end_;
};

TEST(WorkerTaskTest, StartThenTheLoopUntilAStopThenFinishByItsDeadline) {
  test::ManualClock clock;
  RecordingTask task(clock, 2);
  EXPECT_EQ(task.status().state, "UNASSIGNED");
  const auto stop_asked_at = clock.now();
  task.run();
  EXPECT_EQ(task.calls,
            (std::vector<std::string>{"start", "iteration", "iteration", "onStop", "finish"}));
  EXPECT_EQ(task.states, (std::vector<std::string>{"UNASSIGNED", "RUNNING", "RUNNING", "RUNNING"}));
  EXPECT_EQ(task.finish_deadline, stop_asked_at + 1000ms);  // the stop's, not the timeout's
  EXPECT_FALSE(task.finish_got);
  EXPECT_EQ(task.status().state, "STOPPED");
  EXPECT_EQ(task.status().id, 7);
}

TEST(WorkerTaskTest, AFailingStepIsFailedWithItsMessageAndTheTeardownGetsTheGracefulTimeout) {
  test::ManualClock clock;
  RecordingTask task(clock, 1, /*fail_at_end=*/true);
  const auto failed_at = clock.now();
  EXPECT_THROW(task.run(), std::runtime_error);
  ASSERT_TRUE(task.finish_got);
  EXPECT_EQ(task.states.back(), "FAILED");  // shown before the teardown begins
  EXPECT_EQ(task.finish_deadline, failed_at + 3000ms);
  EXPECT_EQ(task.status().state, "FAILED");
  EXPECT_EQ(task.status().last_error, "the destination refused it");
}

TEST(WorkerTaskTest, AStopDuringStartRunsNoIterationAndIsNeverShownRunning) {
  test::ManualClock clock;
  RecordingTask task(clock, 5);
  task.in_start = [&] { task.stop(clock.now() + 500ms); };
  task.run();
  EXPECT_EQ(task.calls, (std::vector<std::string>{"start", "onStop", "finish"}));
  EXPECT_EQ(task.states, (std::vector<std::string>{"UNASSIGNED", "UNASSIGNED"}));
  EXPECT_EQ(task.status().state, "STOPPED");
}

TEST(WorkerTaskTest, PauseShowsPausedWhileRunningAndEveryRequestReachesItsHook) {
  test::ManualClock clock;
  RecordingTask task(clock, 1);
  task.pause();  // before run(): held, shown once it runs
  task.in_start = [&] { task.cancel(); };
  task.run();
  EXPECT_EQ(task.states, (std::vector<std::string>{"UNASSIGNED", "PAUSED", "PAUSED"}));
  EXPECT_EQ(task.status().state, "STOPPED");  // only a running task shows PAUSED
  task.resume();
  EXPECT_EQ(task.calls, (std::vector<std::string>{"onPause", "start", "onCancel", "iteration",
                                                  "onStop", "finish", "onResume"}));
}

TEST(WorkerTaskTest, ItsThreadLogsUnderItsConnectorAndTaskWhileItRunsAndOnlyThen) {
  test::ManualClock clock;
  RecordingTask task(clock, 1);
  std::string during;
  task.in_start = [&] { during = LogContext::current().tag(); };
  task.run();
  EXPECT_EQ(during, "[t|task-7] ");
  EXPECT_EQ(LogContext::current().tag(), "");
}

}  // namespace
}  // namespace ksink
