// Paths at the edges of the worker where a record could be lost or the group could start in the
// wrong place, each on the embedded broker: rewinds and commits in one iteration, rewinds from
// open() for partitions assigned earlier, a committed-offset lookup that fails, a dead-letter
// queue write that fails, and close() failing at a graceful stop.
#include <atomic>
#include <map>
#include <mutex>
#include <numeric>
#include <optional>
#include <thread>

#include "kafka_consumer.h"
#include "support/worker_scenario.h"

namespace ksink::test {
namespace {

using namespace std::chrono_literals;

size_t timesDelivered(const std::vector<Call>& calls, const TopicPartition& tp, int64_t offset) {
  const auto offsets = deliveredOffsets(calls, tp);
  return static_cast<size_t>(std::count(offsets.begin(), offsets.end(), offset));
}

// A put() that rewinds and asks for a commit: the commit of the next iteration must not cover
// the records the task asked to have again.
TEST_F(WorkerScenarios, ACommitInTheIterationOfARewindDoesNotCoverTheRewoundRecords) {
  mock().createTopic(topic_, 1);
  mock().produceValues(topic_, 0, 10);
  script_->rewindWhenPutContains(tp0_, 9, {{tp0_, 0}}).requestCommitWhenPutContains(tp0_, 9);
  auto p = props();
  p["offset.flush.interval.ms"] = "60000";  // only the requested commit
  WorkerRunner worker(p, factory());

  ASSERT_TRUE(waitFor([&](const auto& c) { return timesDelivered(c, tp0_, 9) >= 2; }))
      << describe(calls());
  const auto log = calls();
  // Every preCommit between the rewinding put and the redelivery of offset 0 saw the rewind.
  const auto rewinding = findCall(log, [&](const Call& c) { return contains(c, tp0_, 9); });
  ASSERT_TRUE(rewinding);
  const auto again = findCall(
      log, [&](const Call& c) { return c.kind == CallKind::kPut && contains(c, tp0_, 0); },
      *rewinding + 1);
  ASSERT_TRUE(again);
  for (size_t i = *rewinding + 1; i < *again; ++i) {
    if (log[i].kind == CallKind::kPreCommit) {
      EXPECT_LE(log[i].offsets.at(tp0_), 0) << describe(log[i]);
    }
  }
}

// preCommit() gives records back (a transaction it learns did not commit) while more of the
// partition is already fetched: the next put() starts at the rewind, not at the old position.
TEST_F(WorkerScenarios, ARewindFromPreCommitComesBeforeTheNextPut) {
  mock().createTopic(topic_, 1);
  mock().produceValues(topic_, 0, 40);
  auto rewound = std::make_shared<std::atomic<bool>>(false);
  script_->sleepInPut(100ms).onPreCommit(
      [=, tp = tp0_](SinkTaskContext& context,
                     const OffsetMap& current) -> std::optional<OffsetMap> {
        if (current.contains(tp) && current.at(tp) >= 4 && !rewound->exchange(true)) {
          context.offset(tp, 0);
          return OffsetMap{};
        }
        return std::nullopt;
      });
  auto p = props();
  p["consumer.max.poll.records"] = "2";
  WorkerRunner worker(p, factory());
  ASSERT_TRUE(waitFor([&](const auto& c) { return timesDelivered(c, tp0_, 39) >= 1; }))
      << describe(calls());
  const auto log = calls();
  const auto rewinding = findCall(log, [&](const Call& c) {
    return c.kind == CallKind::kPreCommit && c.offsets.contains(tp0_) && c.offsets.at(tp0_) >= 4;
  });
  ASSERT_TRUE(rewinding) << describe(log);
  const auto next = findCall(
      log, [](const Call& c) { return c.kind == CallKind::kPut && !c.records.empty(); },
      *rewinding + 1);
  ASSERT_TRUE(next) << describe(log);
  EXPECT_EQ(log[*next].records.front().offset, 0) << describe(log[*next]);
  EXPECT_EQ(timesDelivered(log, tp0_, 0), 2u);
}

// Cooperative assignment: open() of a new partition rewinds one the task had before. The
// rewind reaches the consumer, so the rewound records come again.
TEST_F(WorkerScenarios, ARewindInOpenOfAPartitionAssignedEarlierRedeliversIt) {
  const std::string first = topic_ + "-a", second = topic_ + "-b";
  const TopicPartition a0{first, 0}, b0{second, 0};
  mock().createTopic(first, 1);
  mock().produceValues(first, 0, 10);
  auto rewound = std::make_shared<std::atomic<bool>>(false);
  script_->onOpen([=](SinkTaskContext& context, const std::vector<TopicPartition>& partitions) {
    if (std::find(partitions.begin(), partitions.end(), b0) != partitions.end() &&
        !rewound->exchange(true))
      context.offset(a0, 3);
  });
  auto p = props();
  p.erase("topics");
  p["topics.regex"] = "^" + topic_ + "-.*";
  p["consumer.partition.assignment.strategy"] = "cooperative-sticky";
  p["consumer.topic.metadata.refresh.interval.ms"] = "3500";
  // No periodic commit: one in flight while the group rebalances fails with ILLEGAL_GENERATION,
  // and librdkafka then treats the assignment as lost and re-assigns it whole — not the
  // incremental assignment this test is about (seen in CI under load).
  p["offset.flush.interval.ms"] = "600000";
  WorkerRunner worker(p, factory());
  ASSERT_TRUE(waitDelivered(a0, 10)) << describe(calls());

  mock().createTopic(second, 1);
  mock().produceValues(second, 0, 1);
  ASSERT_TRUE(waitFor([&](const auto& c) { return timesDelivered(c, a0, 9) >= 2; }, 40s))
      << describe(calls());
  const auto log = calls();
  const auto opens = select(log, CallKind::kOpen);
  ASSERT_GE(opens.size(), 2u);
  EXPECT_EQ(opens.back().partitions, (std::vector<TopicPartition>{b0})) << "not incremental";
  EXPECT_EQ(timesDelivered(log, a0, 3), 2u);
  EXPECT_EQ(timesDelivered(log, a0, 2), 1u);
}

// OffsetFetch fails twice while the partition is assigned: the lookup is retried, and the task
// starts at the committed offset — not at the end that auto.offset.reset=latest would pick.
TEST_F(WorkerScenarios, AFailedCommittedOffsetLookupIsRetriedNotGuessed) {
  mock().createTopic(topic_, 1);
  mock().produceValues(topic_, 0, 10);
  mock().seedCommitted(group_, {{tp0_, 4}});
  mock().pushRequestErrors(kOffsetFetch, {RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED,
                                          RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED});
  auto p = props();
  p["consumer.auto.offset.reset"] = "latest";
  WorkerRunner worker(p, factory());
  ASSERT_TRUE(waitFor([&](const auto& c) { return timesDelivered(c, tp0_, 9) == 1; }))
      << describe(calls());
  EXPECT_EQ(deliveredOffsets(calls(), tp0_), (std::vector<int64_t>{4, 5, 6, 7, 8, 9}));
}

// A topic deleted and created again holds fewer records than the offset the sink stored: started
// there, the consumer would reset to the start and the sink drop everything below its stored
// offset as written. The task fails instead, naming the partition and the way out; nothing is
// delivered and nothing committed.
TEST_F(WorkerScenarios, AStartPastThePartitionsEndFailsTheTaskNamingTheWayOut) {
  mock().createTopic(topic_, 1);
  mock().produceValues(topic_, 0, 10);
  script_->rewindInOpen({{tp0_, 1000}});  // what a sink stored before the topic was recreated
  WorkerRunner worker(props(), factory());
  ASSERT_TRUE(worker.run().waitFinished(kWait)) << describe(calls());
  const auto error = worker.run().errorMessage();
  EXPECT_NE(
      error.find(fmt::format("{} would start at offset 1000, past the partition's end (10)", tp0_)),
      std::string::npos)
      << error;
  EXPECT_NE(error.find(fmt::format("--set {}:0=0", topic_)), std::string::npos) << error;
  EXPECT_TRUE(deliveredRecords(calls()).empty()) << describe(calls());
  EXPECT_FALSE(mock().committed(group_, tp0_).has_value());
}

// A stored offset at the partition's end (everything written) is an ordinary start.
TEST_F(WorkerScenarios, AStartAtThePartitionsEndIsOrdinary) {
  mock().createTopic(topic_, 1);
  mock().produceValues(topic_, 0, 10);
  script_->rewindInOpen({{tp0_, 10}});
  WorkerRunner worker(props(), factory());
  mock().produceValues(topic_, 0, 3);
  ASSERT_TRUE(waitFor([&](const auto& c) { return deliveredOffsets(c, tp0_).size() == 3; }))
      << describe(calls());
  EXPECT_EQ(deliveredOffsets(calls(), tp0_), (std::vector<int64_t>{10, 11, 12}));
  EXPECT_FALSE(worker.run().finished());
}

// OffsetFetch keeps failing: after default.api.timeout.ms the task fails rather than start the
// partition anywhere, and delivers nothing.
TEST_F(WorkerScenarios, ACommittedOffsetLookupThatKeepsFailingFailsTheTask) {
  mock().createTopic(topic_, 1);
  mock().produceValues(topic_, 0, 10);
  mock().seedCommitted(group_, {{tp0_, 4}});
  mock().pushRequestErrors(kOffsetFetch, std::vector<rd_kafka_resp_err_t>(
                                             40, RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED));
  auto p = props();
  p["consumer.default.api.timeout.ms"] = "2000";
  WorkerRunner worker(p, factory());
  ASSERT_TRUE(worker.run().waitFinished(kWait));
  EXPECT_NE(worker.run().errorMessage().find("default.api.timeout.ms"), std::string::npos)
      << worker.run().errorMessage();
  EXPECT_TRUE(deliveredRecords(calls()).empty()) << describe(calls());
  // The errors left over answer the test's own lookups first.
  std::optional<int64_t> committed;
  for (int attempt = 0; attempt < 50; ++attempt) {
    try {
      committed = mock().committed(group_, tp0_);
      break;
    } catch (const std::exception&) {
    }
  }
  EXPECT_EQ(committed, 4);
}

// Kafka Connect fails a task whose close() throws at shutdown (KAFKA-9955): so does ksink.
TEST_F(WorkerScenarios, CloseThrowingAtAGracefulStopFailsTheRun) {
  mock().createTopic(topic_, 1);
  mock().produceValues(topic_, 0, 3);
  auto stopping = std::make_shared<std::atomic<bool>>(false);
  script_->onClose([=](SinkTaskContext&, const std::vector<TopicPartition>&) {
    if (*stopping) throw std::runtime_error("cannot close the file");
  });
  WorkerRunner worker(props(), factory());
  ASSERT_TRUE(waitDelivered(tp0_, 3)) << describe(calls());
  *stopping = true;
  worker.stop();
  ASSERT_TRUE(worker.run().waitFinished(kWait));
  EXPECT_NE(worker.run().errorMessage().find("cannot close the file"), std::string::npos)
      << "run() returned '" << worker.run().errorMessage() << "'";
  const auto log = calls();
  EXPECT_EQ(select(log, CallKind::kStop).size(), 1u) << describe(log);
  EXPECT_EQ(mock().committed(group_, tp0_), 3);
}

// The task pauses its partition while the consumer holds many records of it already (300
// prefetched, 5 per put): after the resume every record arrives once, in order. librdkafka 2.0.2
// discards what it had prefetched for a partition when it is paused (a probe in the worker saw
// none of them), so the worker's queue of records parked for paused partitions does not grow.
TEST_F(WorkerScenarios, APartitionPausedWithRecordsPrefetchedGetsEachOnceInOrderAfterTheResume) {
  mock().createTopic(topic_, 1);
  mock().produceValues(topic_, 0, 300);
  auto puts_since_pause = std::make_shared<std::atomic<int>>(-1);
  script_->onPut([=, tp = tp0_](SinkTaskContext& context, std::span<const SinkRecord> records) {
    if (puts_since_pause->load() < 0) {
      if (!records.empty()) {
        context.pause({tp});
        *puts_since_pause = 0;
      }
    } else if (++*puts_since_pause == 20) {
      context.resume({tp});
    }
  });
  auto p = props();
  p["consumer.max.poll.records"] = "5";
  WorkerRunner worker(p, factory());
  ASSERT_TRUE(waitDelivered(tp0_, 300)) << describe(calls());
  std::vector<int64_t> expected(300);
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(deliveredOffsets(calls(), tp0_), expected);
}

struct NoListener : RebalanceListener {
  OffsetMap onPartitionsAssigned(const std::vector<TopicPartition>&) override { return {}; }
  void afterAssigned(const std::vector<TopicPartition>&) override {}
  void onPartitionsRevoked(const std::vector<TopicPartition>&, bool) override {}
};

// The worker lowers its ledger before it seeks: a seek librdkafka refuses must not pass silently
// (the consumer would go on past the records the ledger gave up).
TEST_F(WorkerScenarios, ASeekTheConsumerRefusesThrowsNamingThePartition) {
  mock().createTopic(topic_, 1);
  NoListener listener;
  auto consumer = KafkaConsumer::create(
      {{"bootstrap.servers", mock().bootstrap()}, {"group.id", group_}}, listener);
  try {
    consumer->seek({{tp0_, 0}}, 1s);  // not assigned
    FAIL() << "seek of a partition the consumer does not have returned normally";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(topic_ + "-0"), std::string::npos) << e.what();
  }
  consumer->close(5s);
}

// A sink that hands values starting with "bad" to the errant record reporter and records close().
class ReportingSink : public SinkTask {
 public:
  explicit ReportingSink(std::shared_ptr<std::atomic<int>> closes) : closes_(std::move(closes)) {}
  void start(const Config&) override {}
  void put(std::span<const SinkRecord> records) override {
    for (const auto& r : records)
      if (r.value().value_or("").starts_with("bad"))
        context().errantRecordReporter()->report(r, std::runtime_error("bad value"));
  }
  void close(const std::vector<TopicPartition>&) override { ++*closes_; }
  void stop() override {}

 private:
  std::shared_ptr<std::atomic<int>> closes_;
};

// The broker refuses the DLQ write of a skipped record: the task fails without committing past
// it, and close() still runs at the shutdown that follows.
TEST_F(WorkerScenarios, AFailedDlqWriteFailsTheTaskCommitsNothingPastItAndStillCloses) {
  mock().createTopic(topic_, 1);
  mock().createTopic(topic_ + "-dlq", 1);
  mock().produceValues(topic_, 0, 5);
  mock().produce(topic_, 0, {{.key = "k5", .value = "bad5"}});
  mock().produceValues(topic_, 0, 4, "v", 6);
  mock().pushRequestErrors(
      kProduce, std::vector<rd_kafka_resp_err_t>(20, RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED));
  auto p = props();
  withDeadLetterQueue(p, topic_ + "-dlq", false);
  auto closes = std::make_shared<std::atomic<int>>(0);
  WorkerRunner worker(p, [closes] { return std::make_unique<ReportingSink>(closes); });
  ASSERT_TRUE(worker.run().waitFinished(kWait));
  EXPECT_NE(worker.run().errorMessage().find("dead-letter queue write failed"), std::string::npos)
      << worker.run().errorMessage();
  EXPECT_GE(closes->load(), 1);
  EXPECT_LE(mock().committed(group_, tp0_).value_or(0), 5);
}

}  // namespace
}  // namespace ksink::test
