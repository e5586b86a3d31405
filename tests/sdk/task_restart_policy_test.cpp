// TaskRestartPolicy (errors.restart.*): a failed task restarted after the backoff, each next
// restart within the window twice as late, none past max.attempts until the window forgets the
// old ones; off with 0 attempts.
#include "task_restart_policy.h"

#include <gtest/gtest.h>

namespace ksink {
namespace {

using namespace std::chrono_literals;
using Decision = TaskRestartPolicy::Decision;

TEST(TaskRestartPolicyTest, RestartsAfterADoublingBackoffUpToMaxAttemptsWithinTheWindow) {
  TaskRestartPolicy policy(2, 1s, 60s);
  ASSERT_TRUE(policy.enabled());
  const Clock::time_point t0{100s};
  EXPECT_EQ(policy.failed(0, t0), Decision::kWait) << "the failure is first seen";
  EXPECT_EQ(policy.failed(0, t0 + 999ms), Decision::kWait);
  EXPECT_EQ(policy.failed(0, t0 + 1s), Decision::kRestart);
  policy.running(0);
  // Failed again: the second restart waits twice the backoff.
  EXPECT_EQ(policy.failed(0, t0 + 5s), Decision::kWait);
  EXPECT_EQ(policy.failed(0, t0 + 6s), Decision::kWait);
  EXPECT_EQ(policy.failed(0, t0 + 7s), Decision::kRestart);
  // A third failure within the window: left FAILED, said once.
  EXPECT_EQ(policy.failed(0, t0 + 10s), Decision::kGiveUp);
  EXPECT_EQ(policy.failed(0, t0 + 20s), Decision::kWait);
  // Another task counts for itself.
  EXPECT_EQ(policy.failed(1, t0 + 20s), Decision::kWait);
  EXPECT_EQ(policy.failed(1, t0 + 21s), Decision::kRestart);
  // Restarted by hand and failed again once the window forgot the old restarts: restarted again.
  policy.running(0);
  EXPECT_EQ(policy.failed(0, t0 + 70s), Decision::kWait);
  EXPECT_EQ(policy.failed(0, t0 + 71s), Decision::kRestart);
}

TEST(TaskRestartPolicyTest, NoAttemptsIsOff) {
  TaskRestartPolicy policy(0, 1s, 60s);
  EXPECT_FALSE(policy.enabled());
  EXPECT_EQ(policy.failed(0, Clock::time_point{1s}), Decision::kGiveUp);
}

}  // namespace
}  // namespace ksink
