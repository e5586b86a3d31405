// The committable-offsets rule (Kafka Connect's SubmittedRecords): per source partition, up to
// the last record before the first one Kafka has not acknowledged.
#include "submitted_records.h"

#include <gtest/gtest.h>

#include <vector>

namespace ksink {
namespace {

TEST(SubmittedRecordsTest, NothingIsCommittableBeforeAnAcknowledgement) {
  SubmittedRecords records;
  records.submit("a", "1");
  records.submit("a", "2");
  EXPECT_TRUE(records.committable().empty());
  EXPECT_EQ(records.unacknowledged(), 2u);
}

TEST(SubmittedRecordsTest, AnUnacknowledgedRecordHoldsBackTheLaterOnesOfItsPartitionOnly) {
  SubmittedRecords records;
  const auto a1 = records.submit("a", "1");
  const auto a2 = records.submit("a", "2");
  const auto b1 = records.submit("b", "1");
  const auto a3 = records.submit("a", "3");
  // Acknowledged out of order: a2 and a3 before a1, b1 alone.
  records.ack(a3);
  records.ack(a2);
  records.ack(b1);
  EXPECT_EQ(records.committable(), (OffsetEntries{{"b", "1"}}));
  records.ack(a1);
  EXPECT_EQ(records.committable(), (OffsetEntries{{"a", "3"}}));
  EXPECT_EQ(records.pending(), 0u);
  EXPECT_TRUE(records.committable().empty());
}

TEST(SubmittedRecordsTest, TheCommittableOffsetIsTheLastOfTheAcknowledgedPrefix) {
  SubmittedRecords records;
  const auto a1 = records.submit("a", "1");
  const auto a2 = records.submit("a", "2");
  records.submit("a", "3");
  records.ack(a1);
  records.ack(a2);
  EXPECT_EQ(records.committable(), (OffsetEntries{{"a", "2"}}));
  EXPECT_EQ(records.pending(), 1u);
}

TEST(SubmittedRecordsTest, ANullOffsetIsCommittedAsOne) {
  SubmittedRecords records;
  records.ack(records.submit("a", "1"));
  records.ack(records.submit("a", std::nullopt));
  EXPECT_EQ(records.committable(), (OffsetEntries{{"a", std::nullopt}}));
}

TEST(SubmittedRecordsTest, ADroppedRecordAcknowledgedAtOnceLetsItsOffsetBeCommitted) {
  // A filtered record is acknowledged when it is submitted (KAFKA-15296 in Connect).
  SubmittedRecords records;
  const auto sent = records.submit("a", "1");
  records.ack(records.submit("a", "2"));  // dropped by a transform
  EXPECT_TRUE(records.committable().empty()) << "the sent record before it is not acknowledged";
  records.ack(sent);
  EXPECT_EQ(records.committable(), (OffsetEntries{{"a", "2"}}));
}

TEST(SubmittedRecordsTest, AcknowledgingTwiceChangesNothing) {
  SubmittedRecords records;
  const auto a1 = records.submit("a", "1");
  const auto a2 = records.submit("a", "2");
  records.ack(a1);
  records.ack(a1);
  EXPECT_EQ(records.unacknowledged(), 1u);
  EXPECT_EQ(records.committable(), (OffsetEntries{{"a", "1"}}));
  EXPECT_TRUE(records.committable().empty());
  records.ack(a2);
  EXPECT_EQ(records.committable(), (OffsetEntries{{"a", "2"}}));
  EXPECT_EQ(records.pending(), 0u);
}

TEST(SubmittedRecordsTest, HandlesStayValidAsPartitionsComeAndGo) {
  SubmittedRecords records;
  std::vector<SubmittedRecords::Handle> handles;
  for (int i = 0; i < 10000; ++i)
    handles.push_back(records.submit(i % 3 == 0 ? "a" : "b", std::to_string(i)));
  for (size_t i = 0; i < handles.size(); i += 2) records.ack(handles[i]);
  EXPECT_EQ(records.committable(), (OffsetEntries{{"a", "0"}}));
  for (size_t i = 1; i < handles.size(); i += 2) records.ack(handles[i]);
  EXPECT_EQ(records.committable(), (OffsetEntries{{"a", "9999"}, {"b", "9998"}}));
  EXPECT_EQ(records.unacknowledged(), 0u);
}

}  // namespace
}  // namespace ksink
