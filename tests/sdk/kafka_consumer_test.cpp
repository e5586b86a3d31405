// KafkaConsumer where librdkafka 2.0.2 needs it to make up for it: a seek's timeout, which protocol
// a rebalance follows, and a cooperative consumer closed before its first assignment.
#include "kafka_consumer.h"

#include <gtest/gtest.h>

#include "support/mock_cluster.h"
#include "support/polling.h"

namespace ksink::test {
namespace {

using namespace std::chrono_literals;

class Ignore : public RebalanceListener {
  OffsetMap onPartitionsAssigned(const std::vector<TopicPartition>&) override { return {}; }
  void afterAssigned(const std::vector<TopicPartition>&) override {}
  void onPartitionsRevoked(const std::vector<TopicPartition>&, bool) override {}
};

// A cooperative-sticky consumer of `group` on `mock`, subscribed to `topic`.
std::shared_ptr<KafkaConsumer> cooperativeConsumer(const MockCluster& mock,
                                                   const std::string& group,
                                                   const std::string& topic,
                                                   RebalanceListener& listener) {
  auto consumer = KafkaConsumer::create({{"bootstrap.servers", mock.bootstrap()},
                                         {"group.id", group},
                                         {"partition.assignment.strategy", "cooperative-sticky"},
                                         {"enable.auto.commit", "false"}},
                                        listener);
  consumer->subscribe({topic});
  return consumer;
}

// A rebalance's protocol is the configured one. It was asked of rd_kafka_rebalance_protocol(),
// which answers NULL once the group is gone: a consumer closed in the background after leaving
// for max.poll.interval.ms (a hung task let go as a zombie) read that NULL as a string (SIGSEGV;
// UBSan's "null pointer passed as argument 1" in the test kit's kill points). The configuration
// decides alone because librdkafka refuses assignors of both protocols.
TEST(KafkaConsumerProtocol, TheConfiguredStrategyDecidesAndAMixIsRefused) {
  Ignore listener;
  auto consumer = [&](std::optional<std::string> strategy) {
    std::map<std::string, std::string> props{{"bootstrap.servers", "127.0.0.1:1"},
                                             {"group.id", "protocol"}};
    if (strategy) props["partition.assignment.strategy"] = *strategy;
    return KafkaConsumer::create(props, listener);
  };
  EXPECT_TRUE(consumer("cooperative-sticky")->cooperative());
  EXPECT_FALSE(consumer("range")->cooperative());
  EXPECT_FALSE(consumer(std::nullopt)->cooperative());  // librdkafka's range,roundrobin
  EXPECT_THROW(consumer("range,cooperative-sticky"), std::runtime_error);
}

// librdkafka before 2.1.0 read rd_kafka_seek_partitions()' timeout as microseconds: the worker's
// 5 s rewind seek lasted 5 ms, and on a busy machine a rewind failed the task as "Timed out
// waiting for 1 remaining partition seek(s)". The argument is scaled for those versions only.
TEST(KafkaConsumerSeek, TheTimeoutArgumentIsScaledForLibrdkafkaBefore210) {
  EXPECT_EQ(KafkaConsumer::seekTimeoutArgument(5000ms, 0x020002ff), 5'000'000);  // 2.0.2
  EXPECT_EQ(KafkaConsumer::seekTimeoutArgument(5000ms, 0x020100ff), 5000);       // 2.1.0
  EXPECT_EQ(KafkaConsumer::seekTimeoutArgument(5000ms, 0x020a00ff), 5000);
  // Never past what the int argument holds.
  EXPECT_EQ(KafkaConsumer::seekTimeoutArgument(std::chrono::hours(24 * 30), 0x020002ff),
            INT32_MAX / 1000 * 1000);
  EXPECT_EQ(KafkaConsumer::seekTimeoutArgument(0ms, 0x020002ff), 0);
}

// librdkafka 2.0.2 aborts the process (rdkafka_sticky_assignor.c:1896, assert(assignor_state);
// its #4312, fixed in 2.2.0) when a cooperative-sticky consumer is destroyed after its JoinGroup
// answer and before its first SyncGroup answer, which makes the assignor's state. A process that
// stopped a shared source's task group as it joined died so in a cluster test. Here the
// SyncGroup answer is 1.5 s late and the consumer is closed in between: close() waits for the
// answer and destroys the handle (the mock's destructor fails the test on a handle left behind).
TEST(KafkaConsumerClose, ACooperativeConsumerClosedBeforeItsFirstAssignmentNeitherAbortsNorLeaks) {
  MockCluster mock;
  mock.createTopic("close-before-assignment", 1);
  mock.pushBrokerRequestRtts(1, kSyncGroup, {{RD_KAFKA_RESP_ERR_NO_ERROR, 1500}});
  Ignore listener;
  auto consumer =
      cooperativeConsumer(mock, "close-before-assignment", "close-before-assignment", listener);
  // Joined: the JoinGroup answer gave it a member id; its SyncGroup is on its way.
  ASSERT_TRUE(it::waitUntil(
      [&] {
        consumer->poll(20ms);
        return !consumer->memberId().empty();
      },
      30s));
  EXPECT_TRUE(consumer->assignment().empty()) << "the SyncGroup answer came already";
  EXPECT_TRUE(consumer->close(30s)) << "the handle was left behind";
}

// Without a JoinGroup answer (here its coordinator is down) a consumer has no assignor state to
// assert on: close() destroys it rather than wait for an assignment and leave the handle behind.
TEST(KafkaConsumerClose, ACooperativeConsumerThatNeverJoinedIsDestroyedNotLeftBehind) {
  MockCluster mock;
  mock.createTopic("close-unjoined", 1);
  mock.setBrokerDown(1);
  Ignore listener;
  auto consumer = cooperativeConsumer(mock, "close-unjoined", "close-unjoined", listener);
  for (int i = 0; i < 5; ++i) consumer->poll(20ms);
  EXPECT_TRUE(consumer->memberId().empty());
  EXPECT_TRUE(consumer->close(10s)) << "the handle was left behind";
  mock.setBrokerUp(1);
}

}  // namespace
}  // namespace ksink::test
