// TaskStop: the first deadline asked for stays; cancel is separate from the request.
#include "task_stop.h"

#include <gtest/gtest.h>

namespace ksink {
namespace {

using namespace std::chrono_literals;

TEST(TaskStopTest, TheFirstDeadlineAskedForStays) {
  TaskStop stop;
  EXPECT_FALSE(stop.requested());
  EXPECT_FALSE(stop.deadline().has_value());
  const Clock::time_point first{10s};
  stop.request(first);
  stop.request(first + 5s);  // the Worker's second stop, or a finish() without one asked
  EXPECT_TRUE(stop.requested());
  EXPECT_TRUE(stop.requestedFlag().load());
  ASSERT_TRUE(stop.deadline().has_value());
  EXPECT_EQ(*stop.deadline(), first);
  EXPECT_FALSE(stop.cancelled());
}

TEST(TaskStopTest, ACancelNeitherAsksForAStopNorSetsADeadline) {
  TaskStop stop;
  stop.cancel();
  EXPECT_TRUE(stop.cancelled());
  EXPECT_FALSE(stop.requested());
  EXPECT_FALSE(stop.deadline().has_value());
}

}  // namespace
}  // namespace ksink
