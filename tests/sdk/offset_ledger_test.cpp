#include "offset_ledger.h"

#include <gtest/gtest.h>

#include <random>

namespace ksink {
namespace {

const TopicPartition kT0{"t", 0};
const TopicPartition kT1{"t", 1};

TEST(OffsetLedger, AssignStartsAllThreeAtThePosition) {
  OffsetLedger ledger;
  ledger.assign(kT0, 5);
  EXPECT_EQ(ledger.get(kT0), (PartitionOffsets{5, 5, 5}));
  EXPECT_EQ(ledger.deliveredOffsets(), (OffsetMap{{kT0, 5}}));
}

TEST(OffsetLedger, UnknownStartIsLeftOutOfPreCommitUntilDelivered) {
  OffsetLedger ledger;
  ledger.assign(kT0, std::nullopt);
  EXPECT_TRUE(ledger.deliveredOffsets().empty());
  ledger.markDelivered(kT0, 3);
  EXPECT_EQ(ledger.deliveredOffsets(), (OffsetMap{{kT0, 3}}));
  EXPECT_TRUE(ledger.invariantHolds());
}

// A commit whose answer never came (timed out, or replaced by a newer one) may still have moved
// the group: a later, lower offset from preCommit() must not move it back, neither for the
// partition the task returned nor for one it left out.
TEST(OffsetLedger, AnOffsetBelowOneSentInACommitWithoutAnswerIsIgnored) {
  OffsetLedger ledger;
  ledger.assign(kT0, 50);
  ledger.assign(kT1, 0);
  ledger.markDelivered(kT0, 100);
  ledger.markDelivered(kT1, 10);
  auto first = ledger.confirm({kT0, kT1}, {{kT0, 100}, {kT1, 5}});
  ASSERT_TRUE(first.changed);
  EXPECT_EQ(first.offsets, (OffsetMap{{kT0, 100}, {kT1, 5}}));
  // No markCommitted(): the answer timed out. The sink now reports less for t-0.
  auto second = ledger.confirm({kT0, kT1}, {{kT0, 70}, {kT1, 10}});
  EXPECT_EQ(second.offsets, (OffsetMap{{kT0, 100}, {kT1, 10}}));
  ASSERT_EQ(second.ignored.size(), 1u);
  EXPECT_NE(second.ignored[0].find("sent"), std::string::npos) << second.ignored[0];
  // The unanswered offset is sent again, so a commit that failed is retried.
  auto third = ledger.confirm({kT0}, {{kT0, 100}});
  EXPECT_TRUE(third.changed);
  EXPECT_EQ(third.offsets, (OffsetMap{{kT0, 100}}));
  // A rewind is the task's own choice to go back: it lowers the floor.
  ledger.rewind(kT0, 60);
  ledger.markDelivered(kT0, 80);
  auto fourth = ledger.confirm({kT0}, {{kT0, 70}});
  EXPECT_EQ(fourth.offsets, (OffsetMap{{kT0, 70}}));
  EXPECT_TRUE(ledger.invariantHolds());
}

TEST(OffsetLedger, ConfirmAcceptsUpToDelivered) {
  OffsetLedger ledger;
  ledger.assign(kT0, 0);
  ledger.markDelivered(kT0, 10);
  auto plan = ledger.confirm({kT0}, {{kT0, 6}});
  EXPECT_TRUE(plan.changed);
  EXPECT_EQ(plan.offsets, (OffsetMap{{kT0, 6}}));
  EXPECT_EQ(ledger.get(kT0)->confirmed, 6);
  EXPECT_EQ(ledger.get(kT0)->committed, 0);
}

TEST(OffsetLedger, ConfirmIgnoresOffsetsAboveDelivered) {
  OffsetLedger ledger;
  ledger.assign(kT0, 0);
  ledger.assign(kT1, 0);
  ledger.markDelivered(kT0, 10);
  ledger.markDelivered(kT1, 4);
  auto plan = ledger.confirm({kT0, kT1}, {{kT0, 11}, {kT1, 4}});
  EXPECT_EQ(plan.offsets, (OffsetMap{{kT0, 0}, {kT1, 4}}));
  ASSERT_EQ(plan.ignored.size(), 1u);
  EXPECT_NE(plan.ignored[0].find("not yet consumed"), std::string::npos);
}

TEST(OffsetLedger, ConfirmIgnoresUnassignedAndUnrequestedPartitions) {
  OffsetLedger ledger;
  ledger.assign(kT0, 0);
  ledger.assign(kT1, 0);
  ledger.markDelivered(kT0, 3);
  ledger.markDelivered(kT1, 3);
  auto plan = ledger.confirm({kT0}, {{kT0, 3}, {kT1, 3}, {{"t", 7}, 1}});
  EXPECT_EQ(plan.offsets, (OffsetMap{{kT0, 3}}));
  EXPECT_EQ(plan.ignored.size(), 2u);
  EXPECT_EQ(ledger.get(kT1)->confirmed, 0);
}

TEST(OffsetLedger, ConfirmIgnoresOffsetsBelowCommitted) {
  OffsetLedger ledger;
  ledger.assign(kT0, 8);
  ledger.markDelivered(kT0, 12);
  auto plan = ledger.confirm({kT0}, {{kT0, 5}});
  EXPECT_FALSE(plan.changed);
  EXPECT_EQ(ledger.get(kT0)->confirmed, 8);
}

TEST(OffsetLedger, UnchangedOffsetsMeanNoCommit) {
  OffsetLedger ledger;
  ledger.assign(kT0, 4);
  ledger.markDelivered(kT0, 4);
  EXPECT_FALSE(ledger.confirm({kT0}, {{kT0, 4}}).changed);
}

TEST(OffsetLedger, MarkCommittedIsClampedToConfirmed) {
  OffsetLedger ledger;
  ledger.assign(kT0, 0);
  ledger.markDelivered(kT0, 10);
  ledger.confirm({kT0}, {{kT0, 10}});
  ledger.rewind(kT0, 4);  // a rewind raced an in-flight commit of 10
  ledger.markCommitted({{kT0, 10}});
  EXPECT_EQ(ledger.get(kT0), (PartitionOffsets{4, 4, 4}));
}

TEST(OffsetLedger, MarkCommittedIgnoresPartitionsNoLongerAssigned) {
  OffsetLedger ledger;
  ledger.assign(kT0, 0);
  ledger.markCommitted({{kT1, 3}});
  EXPECT_FALSE(ledger.contains(kT1));
}

TEST(OffsetLedger, RewindForwardKeepsCommittedBelow) {
  OffsetLedger ledger;
  ledger.assign(kT0, 10);
  ledger.rewind(kT0, 40);
  EXPECT_EQ(ledger.get(kT0), (PartitionOffsets{40, 10, 10}));
  auto plan = ledger.confirm({kT0}, {{kT0, 40}});
  EXPECT_EQ(plan.offsets, (OffsetMap{{kT0, 40}}));
}

TEST(OffsetLedger, RewindOfUnknownStartSetsABaseline) {
  OffsetLedger ledger;
  ledger.assign(kT0, std::nullopt);
  ledger.rewind(kT0, 7);
  EXPECT_EQ(ledger.get(kT0), (PartitionOffsets{7, 7, 7}));
}

// Every sequence of operations keeps committed ≤ confirmed ≤ delivered.
TEST(OffsetLedger, InvariantHoldsUnderRandomOperations) {
  std::mt19937 rng(12345);
  for (int round = 0; round < 200; ++round) {
    OffsetLedger ledger;
    const std::vector<TopicPartition> tps{kT0, kT1, {"u", 0}};
    for (int step = 0; step < 300; ++step) {
      const auto& tp = tps[rng() % tps.size()];
      const int64_t offset = static_cast<int64_t>(rng() % 100);
      switch (rng() % 7) {
        case 0:
          ledger.assign(tp, rng() % 4 == 0 ? std::nullopt : std::optional<int64_t>(offset));
          break;
        case 1:
          ledger.remove(tp);
          break;
        case 2: {
          auto p = ledger.get(tp);
          if (p && p->delivered) ledger.markDelivered(tp, *p->delivered + offset % 10);
          break;
        }
        case 3:
          ledger.rewind(tp, offset);
          break;
        case 4:
          ledger.confirm({tp}, {{tp, offset}, {tps[rng() % tps.size()], offset}});
          break;
        case 5:
          ledger.markCommitted({{tp, offset}});
          break;
        case 6: {
          auto plan = ledger.confirm(tps, ledger.deliveredOffsets());
          ledger.markCommitted(plan.offsets);
          break;
        }
      }
      ASSERT_TRUE(ledger.invariantHolds()) << "round " << round << " step " << step;
    }
  }
}

}  // namespace
}  // namespace ksink
