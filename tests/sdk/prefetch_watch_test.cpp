// PrefetchWatch (when to wake librdkafka's fetcher) and, on the embedded mock cluster, that the
// consumer does wake it once a prefetch smaller than the topic has drained.
#include "prefetch_watch.h"

#include <gtest/gtest.h>

#include "kafka_consumer.h"
#include "mock_cluster.h"

namespace ksink {
namespace {

using std::chrono::milliseconds;
using TimePoint = std::chrono::steady_clock::time_point;

// Polls `n` messages of `bytes` each and looks at the queue whenever the watch asks to, with
// `queued` messages in it; returns how many wake-ups it asked for.
int pollRun(PrefetchWatch& watch, int n, size_t bytes, int64_t queued) {
  int wakes = 0;
  for (int i = 0; i < n; ++i)
    if (watch.polled(bytes) && watch.observe(queued)) ++wakes;
  return wakes;
}

TEST(PrefetchWatch, WakesOnceWhenAQueueSeenHalfFullDrainsBelowHalf) {
  PrefetchWatch watch(/*max_messages=*/1000, /*max_bytes=*/1 << 30);
  EXPECT_EQ(pollRun(watch, 256, 100, 900), 0);  // nearly full: the fetcher may stop
  EXPECT_EQ(pollRun(watch, 64, 100, 400), 1);   // below half: wake it, once
  EXPECT_EQ(pollRun(watch, 256, 100, 300), 0);  // still low, but it was woken already
  EXPECT_EQ(pollRun(watch, 64, 100, 700), 0);
  EXPECT_EQ(pollRun(watch, 64, 100, 100), 1);  // refilled and drained again: one more
}

TEST(PrefetchWatch, TheByteLimitCountsFromTheMeanMessageSize) {
  // 200 messages of 10 KiB are 2 MiB: more than half of a 3 MiB budget, though far from the
  // message limit.
  PrefetchWatch watch(/*max_messages=*/100000, /*max_bytes=*/3 << 20);
  EXPECT_EQ(pollRun(watch, 256, 10240, 200), 0);
  EXPECT_EQ(pollRun(watch, 64, 10240, 100), 1);
  PrefetchWatch small(/*max_messages=*/100000, /*max_bytes=*/3 << 20);
  EXPECT_EQ(pollRun(small, 256, 100, 200), 0);  // 20 KB: never half full, never armed
  EXPECT_EQ(pollRun(small, 64, 100, 10), 0);
}

TEST(PrefetchWatch, AnEmptyQueueWakesWhileRecordsFlowAtMostEveryGap) {
  PrefetchWatch watch(1000, 1 << 30);
  const TimePoint t0{std::chrono::seconds(100)};
  EXPECT_FALSE(watch.empty(t0));  // nothing polled yet: an idle topic asks for nothing
  pollRun(watch, 10, 100, 0);
  EXPECT_TRUE(watch.empty(t0));
  pollRun(watch, 10, 100, 0);
  EXPECT_FALSE(watch.empty(t0 + PrefetchWatch::kEmptyWakeGap / 2));
  EXPECT_TRUE(watch.empty(t0 + PrefetchWatch::kEmptyWakeGap));
  EXPECT_FALSE(watch.empty(t0 + PrefetchWatch::kEmptyWakeGap * 5));  // nothing polled since
}

TEST(PrefetchWatch, AnArmedQueueFoundEmptyWakesAtOnce) {
  PrefetchWatch watch(1000, 1 << 30);
  const TimePoint t0{std::chrono::seconds(100)};
  pollRun(watch, 64, 100, 0);
  EXPECT_TRUE(watch.empty(t0));
  pollRun(watch, 64, 100, 800);  // armed …
  EXPECT_TRUE(watch.empty(t0));  // … and drained between two looks: no gap applies
}

class NoRebalance : public RebalanceListener {
 public:
  OffsetMap onPartitionsAssigned(const std::vector<TopicPartition>&) override { return {}; }
  void afterAssigned(const std::vector<TopicPartition>&) override {}
  void onPartitionsRevoked(const std::vector<TopicPartition>&, bool) override {}
};

TEST(KafkaConsumerPrefetch, WakesTheFetcherWhenAPrefetchSmallerThanTheTopicDrains) {
  test::MockCluster cluster(1);
  const std::string topic = "prefetch";
  cluster.createTopic(topic, 2);
  constexpr int kRecords = 100000;
  for (int32_t p = 0; p < 2; ++p) cluster.produceValues(topic, p, kRecords / 2);
  NoRebalance listener;
  auto consumer = KafkaConsumer::create({{"bootstrap.servers", cluster.bootstrap()},
                                         {"group.id", "prefetch"},
                                         {"auto.offset.reset", "earliest"},
                                         {"enable.auto.commit", "false"},
                                         {"queued.min.messages", "500"},
                                         {"max.partition.fetch.bytes", "65536"}},
                                        listener);
  consumer->subscribe({topic});
  int received = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (received < kRecords && std::chrono::steady_clock::now() < deadline) {
    auto m = consumer->poll(milliseconds(100));
    if (m && !m->err) ++received;
  }
  EXPECT_EQ(received, kRecords);
  // 100000 records through a 500-record prefetch, fetched ~1000 at a time: the fetcher stopped
  // at the limit again and again and was woken each time (13-14 wake-ups measured; without them
  // the same loop took 10.1 s instead of 3.2 s, waiting for librdkafka's one-second tick).
  EXPECT_GE(consumer->fetchWakeups(), 5u);
  consumer->close(std::chrono::seconds(10));
}

}  // namespace
}  // namespace ksink
