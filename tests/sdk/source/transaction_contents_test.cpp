// TransactionContents: what an exactly-once task's open transaction holds, and the calls its
// commit or abort owes the task — each record's commitRecord() with where Kafka put it (none when
// not produced, not reported, or aborted), then commit() after a commit only.
#include "transaction_contents.h"

#include <gtest/gtest.h>

namespace ksink {
namespace {

using Calls = SourceTaskCalls::Due;
using Owed = std::vector<std::pair<uint64_t, std::optional<RecordMetadata>>>;

RecordMetadata at(const std::string& topic, int32_t partition, int64_t offset) {
  return {topic, partition, offset, 1000 + offset};
}

TEST(TransactionContentsTest, ACommitOwesEachRecordWhereKafkaPutItInOrderThenCommit) {
  TransactionContents t;
  const auto first = t.beginSend(true);
  t.produced(10, "a", true);
  t.notProduced(11, true);  // dropped by a transform
  const auto third = t.beginSend(true);
  t.produced(12, "b", true);
  t.beginSend(true);
  t.produced(13, "a", true);  // never reported
  t.setOffset("p", "1");
  t.setOffset("p", "2");  // the newest per partition
  t.delivered(third, at("b", 1, 7));
  t.delivered(first, at("a", 0, 5));
  EXPECT_EQ(t.offsets(), (OffsetEntries{{"p", "2"}}));
  EXPECT_EQ(t.produced(), 3u);
  EXPECT_EQ(t.records(), 4u);

  Calls calls;
  EXPECT_EQ(t.committed(calls), 3u);
  EXPECT_EQ(
      calls.records,
      (Owed{{10, at("a", 0, 5)}, {11, std::nullopt}, {12, at("b", 1, 7)}, {13, std::nullopt}}));
  EXPECT_TRUE(calls.commit);
  EXPECT_TRUE(t.offsets().empty());
  EXPECT_EQ(t.records(), 0u);
  EXPECT_EQ(t.produced(), 0u);
}

// A task that keeps no record for commitRecord(): nothing kept, the produced ones still counted
// (what an abort's log line and a commit's count report).
TEST(TransactionContentsTest, ProducedCountsRecordsThatAreNotKept) {
  TransactionContents t;
  t.beginSend(false);
  t.produced(1, "a", false);
  t.beginSend(false);
  t.produced(2, "a", false);
  EXPECT_EQ(t.records(), 0u);
  EXPECT_EQ(t.produced(), 2u);
  Calls calls;
  EXPECT_EQ(t.committed(calls), 2u);
  EXPECT_EQ(t.produced(), 0u);
}

TEST(TransactionContentsTest, AnAbortOwesTheRecordsNoMetadataAndKeepsTheirOffsets) {
  TransactionContents t;
  const auto token = t.beginSend(true);
  t.produced(1, "a", true);
  t.setOffset("p", "1");
  Calls aborted;
  t.aborted(aborted);
  EXPECT_EQ(aborted.records, (Owed{{1, std::nullopt}}));
  EXPECT_FALSE(aborted.commit);
  EXPECT_EQ(t.offsets(), (OffsetEntries{{"p", "1"}}));

  // A late report of the aborted record does not land on the next transaction's record.
  const auto next = t.beginSend(true);
  EXPECT_NE(next, token);
  t.delivered(token, at("a", 0, 99));
  t.produced(2, "a", true);
  Calls committed;
  EXPECT_EQ(t.committed(committed), 1u);
  EXPECT_EQ(committed.records, (Owed{{2, std::nullopt}}));
}

TEST(TransactionContentsTest, RecordsNotKeptAreCountedButOweNoCall) {
  TransactionContents t;
  t.beginSend(true);
  t.abandonSend(true);  // a stop while the queue was full: not produced
  const auto token = t.beginSend(false);
  t.produced(1, "a", false);
  t.notProduced(2, false);
  t.delivered(token, at("a", 0, 1));
  Calls calls;
  EXPECT_EQ(t.committed(calls), 1u);
  EXPECT_TRUE(calls.records.empty());
  EXPECT_TRUE(calls.commit);
}

}  // namespace
}  // namespace ksink
