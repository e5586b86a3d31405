// SinkRewinds: a rewind asked for while open() runs is the rebalance's (a start offset), never
// pending; any other is pending until taken, the newest per partition; a revoked partition's is
// forgotten.
#include "sink_rewinds.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace ksink {
namespace {

const TopicPartition kA{"t", 0}, kB{"t", 1};

TEST(SinkRewinds, RewindsAskedForDuringOpenAreCollectedAndNotPending) {
  SinkRewinds rewinds;
  const auto collected = rewinds.collectDuring([&] {
    rewinds.request(kA, 5);
    rewinds.request(kA, 7);
  });
  EXPECT_EQ(collected, (OffsetMap{{kA, 7}}));
  EXPECT_FALSE(rewinds.hasPending());
  rewinds.request(kB, 3);  // after open(): pending
  EXPECT_EQ(rewinds.pendingFor(kB), 3);
  EXPECT_EQ(rewinds.takePending(), (OffsetMap{{kB, 3}}));
  EXPECT_FALSE(rewinds.hasPending());
}

TEST(SinkRewinds, AnOpenThatThrowsEndsTheCollectionAndLaterRewindsArePending) {
  SinkRewinds rewinds;
  EXPECT_THROW(rewinds.collectDuring([&] {
    rewinds.request(kA, 5);
    throw std::runtime_error("open failed");
  }),
               std::runtime_error);
  EXPECT_FALSE(rewinds.hasPending()) << "what the failed open() asked for is dropped";
  rewinds.request(kA, 9);
  EXPECT_EQ(rewinds.pendingFor(kA), 9);
}

TEST(SinkRewinds, AForgottenPartitionHasNoPendingRewind) {
  SinkRewinds rewinds;
  rewinds.request(kA, 1);
  rewinds.request(kB, 2);
  rewinds.forget(kA);
  EXPECT_EQ(rewinds.pendingFor(kA), std::nullopt);
  EXPECT_EQ(rewinds.takePending(), (OffsetMap{{kB, 2}}));
}

}  // namespace
}  // namespace ksink
