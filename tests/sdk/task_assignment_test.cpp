// TaskAssignment: every change of the assignment or of a pause moves the epoch; a pause never
// outlives its partition; a redelivery pauses every partition for the consumer, and only then.
#include "task_assignment.h"

#include <gtest/gtest.h>

namespace ksink {
namespace {

const TopicPartition kA{"t", 0}, kB{"t", 1};

TEST(TaskAssignment, EveryChangeMovesTheEpoch) {
  TaskAssignment a;
  uint64_t epoch = a.epoch();
  const auto moved = [&] {
    const bool changed = a.epoch() != epoch;
    epoch = a.epoch();
    return changed;
  };
  a.add(kA);
  EXPECT_TRUE(moved());
  EXPECT_TRUE(a.pause(kA));
  EXPECT_TRUE(moved());
  EXPECT_TRUE(a.resume(kA));
  EXPECT_TRUE(moved());
  a.rebalancing();
  EXPECT_TRUE(moved());
  a.remove(kA);
  EXPECT_TRUE(moved());
  a.clear();
  EXPECT_TRUE(moved());
}

TEST(TaskAssignment, OnlyAssignedPartitionsPauseAndAPauseEndsWithItsPartition) {
  TaskAssignment a;
  EXPECT_FALSE(a.pause(kA)) << "not assigned";
  a.add(kA);
  a.add(kB);
  EXPECT_TRUE(a.pause(kA));
  EXPECT_FALSE(a.pause(kA)) << "already paused";
  a.remove(kA);
  a.add(kA);
  EXPECT_FALSE(a.isPaused(kA)) << "the pause went with the partition";
  EXPECT_TRUE(a.pause(kB));
  a.clear();
  EXPECT_TRUE(a.assigned().empty());
  EXPECT_FALSE(a.isPaused(kB));
  EXPECT_FALSE(a.resume(kB));
}

TEST(TaskAssignment, ARedeliveryPausesEveryPartitionForTheConsumerAndKeepsTheTasksOwnPauses) {
  TaskAssignment a;
  a.add(kA);
  a.add(kB);
  EXPECT_TRUE(a.pause(kA));
  const auto before = a.epoch();
  a.setRedelivering(true);
  EXPECT_NE(a.epoch(), before) << "a cached run decision must see the redelivery";
  EXPECT_TRUE(a.redelivering());
  EXPECT_TRUE(a.consumerPaused(kA));
  EXPECT_TRUE(a.consumerPaused(kB));
  EXPECT_FALSE(a.isPaused(kB)) << "the task did not pause it";
  a.setRedelivering(false);
  EXPECT_TRUE(a.consumerPaused(kA)) << "the task's own pause outlives the redelivery";
  EXPECT_FALSE(a.consumerPaused(kB));
}

}  // namespace
}  // namespace ksink
