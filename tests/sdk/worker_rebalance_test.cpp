// Rebalances on the embedded broker: revocation hands partitions over in Connect's order, lost
// partitions are never committed, the cooperative assignor leaves kept partitions alone, and a
// batch waiting for redelivery loses the records of revoked partitions
// (Connect sink acceptance scenarios 17, 18, 19 and 28).
//
// The mock answers a commit made inside an eager revoke callback with REBALANCE_IN_PROGRESS
// (a deviation of the mock; Kafka accepts it), so these tests check the order of the calls and that
// no record is lost, not the committed value at the moment of the hand-over: the tests against a
// real broker (integration/) do that.
#include <optional>
#include <set>
#include <thread>

#include "ksink/retriable_error.h"
#include "support/worker_scenario.h"

namespace ksink::test {
namespace {

using namespace std::chrono_literals;

std::vector<size_t> indicesOf(const std::vector<Call>& log, CallKind kind, int task) {
  std::vector<size_t> out;
  for (size_t i = 0; i < log.size(); ++i)
    if (log[i].kind == kind && log[i].task == task) out.push_back(i);
  return out;
}

// Every record a task was handed belongs to a partition it had open at that moment.
void expectPutsOnlyForOpenPartitions(const std::vector<Call>& log) {
  std::map<int, std::set<TopicPartition>> open;
  for (const auto& c : log) {
    if (c.kind == CallKind::kOpen) open[c.task].insert(c.partitions.begin(), c.partitions.end());
    if (c.kind == CallKind::kClose)
      for (const auto& tp : c.partitions) open[c.task].erase(tp);
    if (c.kind != CallKind::kPut) continue;
    for (const auto& r : c.records) {
      EXPECT_TRUE(open[c.task].contains(r.tp)) << describe(c) << "\n" << describe(log);
    }
  }
}

TEST_F(WorkerScenarios, S17_RevokedPartitionsArePreCommittedAndClosedBeforeTheNewOwnerOpens) {
  mock().createTopic(topic_, 2);
  mock().produceValues(topic_, 0, 10);
  mock().produceValues(topic_, 1, 10);
  WorkerRunner a(props(), factory(0));
  ASSERT_EQ(waitCommitted(tp0_, 10), 10) << describe(calls());
  ASSERT_EQ(waitCommitted(tp1_, 10), 10) << describe(calls());

  // Records 10..14 are in flight when the second worker joins and the group rebalances.
  mock().produceValues(topic_, 0, 5, "v", 10);
  mock().produceValues(topic_, 1, 5, "v", 10);
  WorkerRunner b(props(), factory(1));
  ASSERT_TRUE(waitFor([](const auto& c) {
    return !indicesOf(c, CallKind::kOpen, 1).empty() &&
           indicesOf(c, CallKind::kOpen, 0).size() >= 2;
  })) << describe(calls());
  mock().produceValues(topic_, 0, 5, "v", 15);
  mock().produceValues(topic_, 1, 5, "v", 15);
  ASSERT_TRUE(waitDelivered(tp0_, 20) && waitDelivered(tp1_, 20)) << describe(calls());
  ASSERT_EQ(waitCommitted(tp0_, 20), 20) << describe(calls());
  ASSERT_EQ(waitCommitted(tp1_, 20), 20) << describe(calls());

  const auto log = calls();
  // Eager assignment: the first worker gives up everything, preCommit of exactly the revoked
  // partitions, then (after its flush) close of them, with no put() in between ...
  const auto a_close = indicesOf(log, CallKind::kClose, 0);
  ASSERT_FALSE(a_close.empty());
  EXPECT_EQ(sorted(log[a_close[0]].partitions), (std::vector<TopicPartition>{tp0_, tp1_}));
  size_t pc = a_close[0];
  while (pc > 0 && !(log[pc].kind == CallKind::kPreCommit && log[pc].task == 0)) --pc;
  ASSERT_EQ(log[pc].kind, CallKind::kPreCommit) << describe(log);
  EXPECT_EQ(log[pc].offsets.size(), 2u);
  EXPECT_TRUE(log[pc].offsets.contains(tp0_) && log[pc].offsets.contains(tp1_));
  for (size_t i = pc + 1; i < a_close[0]; ++i) {
    if (log[i].task == 0) {
      EXPECT_EQ(log[i].kind, CallKind::kFlush) << describe(log);
    }
  }
  // ... and only then does the new owner open anything.
  const auto b_open = indicesOf(log, CallKind::kOpen, 1);
  ASSERT_FALSE(b_open.empty());
  EXPECT_GT(b_open[0], a_close[0]) << describe(log);
  // The two workers now split the partitions.
  const auto a_open = indicesOf(log, CallKind::kOpen, 0);
  ASSERT_GE(a_open.size(), 2u);
  std::vector<TopicPartition> split = log[a_open[1]].partitions;
  split.insert(split.end(), log[b_open[0]].partitions.begin(), log[b_open[0]].partitions.end());
  EXPECT_EQ(sorted(split), (std::vector<TopicPartition>{tp0_, tp1_})) << describe(log);
  expectPutsOnlyForOpenPartitions(log);
}

// A heartbeat answered with ILLEGAL_GENERATION makes librdkafka drop the assignment as lost
// (the recipe of librdkafka's own tests, 0113-cooperative_rebalance); the member then rejoins.
TEST_F(WorkerScenarios, S18_LostPartitionsAreClosedWithoutPreCommitOrCommit) {
  mock().createTopic(topic_, 1);
  mock().produceValues(topic_, 0, 5);
  auto p = props();
  p["offset.flush.interval.ms"] = "60000";
  script_->requestCommitWhenPutContains(tp0_, 4);
  WorkerRunner worker(p, factory());
  ASSERT_EQ(waitCommitted(tp0_, 5), 5) << describe(calls());
  mock().produceValues(topic_, 0, 5, "v", 5);
  ASSERT_TRUE(waitDelivered(tp0_, 10)) << describe(calls());

  mock().pushRequestErrors(kHeartbeat, {RD_KAFKA_RESP_ERR_ILLEGAL_GENERATION});
  ASSERT_TRUE(waitFor([&](const auto& c) {
    return select(c, CallKind::kOpen).size() >= 2 && deliveredOffsets(c, tp0_).size() >= 15;
  })) << describe(calls());
  // Nothing was committed for the lost partition: the group still says 5.
  EXPECT_EQ(mock().committed(group_, tp0_), 5);

  const auto log = calls();
  const auto closes = select(log, CallKind::kClose);
  ASSERT_EQ(closes.size(), 1u) << describe(log);
  EXPECT_EQ(closes[0].partitions, std::vector<TopicPartition>{tp0_});
  const auto close_at = findCall(log, [](const Call& c) { return c.kind == CallKind::kClose; });
  const auto last_put = findCall(log, [&](const Call& c) { return contains(c, tp0_, 9); });
  ASSERT_TRUE(close_at && last_put);
  for (size_t i = *last_put; i < *close_at; ++i) {
    EXPECT_NE(log[i].kind, CallKind::kPreCommit) << describe(log);
    EXPECT_NE(log[i].kind, CallKind::kFlush) << describe(log);
  }
  // Reassigned, consumption resumes from the last commit: 5..9 again (at least once).
  std::vector<int64_t> after;
  for (size_t i = *close_at; i < log.size(); ++i)
    for (const auto& r : log[i].records) after.push_back(r.offset);
  EXPECT_EQ(after, (std::vector<int64_t>{5, 6, 7, 8, 9}));

  ASSERT_TRUE(worker.stopAndMeasure(10s));
  EXPECT_EQ(mock().committed(group_, tp0_), 10);
}

TEST_F(WorkerScenarios, S19_CooperativeRebalanceOpensOnlyTheNewPartitions) {
  const std::string first = topic_ + "-a";
  const std::string second = topic_ + "-b";
  mock().createTopic(first, 2);
  for (int32_t p = 0; p < 2; ++p) mock().produceValues(first, p, 3);
  auto p = props();
  p.erase("topics");
  p["topics.regex"] = "^" + topic_ + "-.*";
  p["consumer.override.partition.assignment.strategy"] = "cooperative-sticky";
  p["consumer.topic.metadata.refresh.interval.ms"] = "500";
  WorkerRunner worker(p, factory());
  const TopicPartition a0{first, 0}, a1{first, 1}, b0{second, 0}, b1{second, 1};
  ASSERT_EQ(waitCommitted(a0, 3), 3) << describe(calls());
  ASSERT_EQ(waitCommitted(a1, 3), 3) << describe(calls());

  mock().createTopic(second, 2);
  for (int32_t p = 0; p < 2; ++p) mock().produceValues(second, p, 3);
  ASSERT_TRUE(waitDelivered(b0, 3) && waitDelivered(b1, 3)) << describe(calls());
  ASSERT_EQ(waitCommitted(b0, 3), 3) << describe(calls());
  ASSERT_EQ(waitCommitted(b1, 3), 3) << describe(calls());

  const auto log = calls();
  const auto opens = select(log, CallKind::kOpen);
  ASSERT_EQ(opens.size(), 2u) << describe(log);
  EXPECT_EQ(sorted(opens[0].partitions), (std::vector<TopicPartition>{a0, a1}));
  EXPECT_EQ(sorted(opens[1].partitions), (std::vector<TopicPartition>{b0, b1}));
  // The partitions of the first topic were never revoked, so never closed and not re-read.
  EXPECT_TRUE(select(log, CallKind::kClose).empty()) << describe(log);
  EXPECT_EQ(deliveredOffsets(log, a0), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(deliveredOffsets(log, a1), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(committed({a0, a1, b0, b1}), (OffsetMap{{a0, 3}, {a1, 3}, {b0, 3}, {b1, 3}}));
}

// Cooperative, so that the first worker keeps one partition while it redelivers.
// S28's start: two partitions of 5 records, cooperative assignment (so a worker keeps a
// partition while it redelivers), and a first worker (task 0) whose put() throws RetriableError
// while `failing_` is set; returns once that worker has failed twice. Other workers never fail.
class RedeliveryScenarios : public WorkerScenarios {
 protected:
  void startFailingWorker() {
    mock().createTopic(topic_, 2);
    mock().produceValues(topic_, 0, 5);
    mock().produceValues(topic_, 1, 5);
    props_ = props();
    props_["consumer.override.partition.assignment.strategy"] = "cooperative-sticky";
    auto script = std::make_shared<SinkScript>();
    script->onPut([failing = failing_](SinkTaskContext& ctx, std::span<const SinkRecord> records) {
      if (records.empty() || !*failing) return;
      ctx.timeout(200ms);
      throw RetriableError("scripted: destination unavailable");
    });
    first_.emplace(props_, RecordingSink::factory(log_, script, 0));
    ASSERT_TRUE(waitFor([](const auto& c) {
      return std::count_if(c.begin(), c.end(), [](const Call& x) { return x.threw; }) >= 2;
    })) << describe(calls());
  }

  std::shared_ptr<std::atomic<bool>> failing_ = std::make_shared<std::atomic<bool>>(true);
  Properties props_;
  std::optional<WorkerRunner> first_;
};

TEST_F(RedeliveryScenarios, S28_RevokedPartitionsLeaveTheBatchWaitingForRedelivery) {
  ASSERT_NO_FATAL_FAILURE(startFailingWorker());
  WorkerRunner b(props_, factory(1));
  ASSERT_TRUE(waitFor([](const auto& c) { return !indicesOf(c, CallKind::kOpen, 1).empty(); }))
      << describe(calls());
  const auto moved = select(calls(), CallKind::kOpen, 1).front().partitions;
  ASSERT_EQ(moved.size(), 1u);
  const TopicPartition kept = moved[0] == tp0_ ? tp1_ : tp0_;
  // The second worker delivers the moved partition from its start while the first keeps failing.
  ASSERT_TRUE(waitDelivered(moved[0], 5)) << describe(calls());
  ASSERT_TRUE(waitFor([](const auto& c) {
    const auto closes = indicesOf(c, CallKind::kClose, 0);
    return !closes.empty() && std::count_if(c.begin() + static_cast<long>(closes[0]), c.end(),
                                            [](const Call& x) { return x.threw; }) >= 1;
  })) << describe(calls());
  *failing_ = false;
  ASSERT_TRUE(waitDelivered(kept, 5)) << describe(calls());
  ASSERT_EQ(waitCommitted(tp0_, 5), 5) << describe(calls());
  ASSERT_EQ(waitCommitted(tp1_, 5), 5) << describe(calls());

  const auto log = calls();
  const auto a_close = indicesOf(log, CallKind::kClose, 0);
  ASSERT_FALSE(a_close.empty());
  EXPECT_EQ(log[a_close[0]].partitions, moved);
  // The put() retried after the revocation holds the same records as the failed one before it,
  // minus those of the revoked partition.
  std::optional<size_t> before, after;
  for (size_t i = 0; i < log.size(); ++i) {
    if (log[i].task != 0 || log[i].kind != CallKind::kPut || log[i].records.empty()) continue;
    if (i < a_close[0]) before = i;
    if (i > a_close[0] && !after) after = i;
  }
  ASSERT_TRUE(before && after) << describe(log);
  ASSERT_TRUE(log[*before].threw);
  std::vector<RecordedRecord> expected;
  for (const auto& r : log[*before].records)
    if (r.tp != moved[0]) expected.push_back(r);
  if (expected.empty()) {
    // Every record of the pending batch was revoked: consumption simply resumed.
    EXPECT_EQ(log[*after].records.front().tp, kept) << describe(log);
  } else {
    EXPECT_EQ(log[*after].records, expected) << describe(log);
  }
  expectPutsOnlyForOpenPartitions(log);
  EXPECT_EQ(deliveredOffsets(log, kept, 0), (std::vector<int64_t>{0, 1, 2, 3, 4}));
}

// The other branch of S28: a partition assigned while a batch waits for redelivery stays paused
// until that batch goes through, then is consumed.
TEST_F(RedeliveryScenarios, S28_PartitionsAssignedDuringRedeliveryWaitForTheRetriedBatch) {
  // The first worker takes both partitions and keeps failing; the second takes one of them over.
  ASSERT_NO_FATAL_FAILURE(startFailingWorker());
  std::optional<WorkerRunner> b;
  b.emplace(props_, factory(1));
  ASSERT_TRUE(waitFor([](const auto& c) { return !indicesOf(c, CallKind::kOpen, 1).empty(); }))
      << describe(calls());
  const auto opens_b = select(calls(), CallKind::kOpen, 1);
  ASSERT_EQ(opens_b.front().partitions.size(), 1u) << describe(calls());
  const TopicPartition moved = opens_b.front().partitions[0];
  const TopicPartition kept = moved == tp0_ ? tp1_ : tp0_;
  ASSERT_TRUE(waitDelivered(moved, 5)) << describe(calls());
  ASSERT_TRUE(waitCommitted(moved, 5).has_value()) << describe(calls());
  b.reset();  // leaves the group: `moved` goes to the first worker, which is still redelivering
  mock().produceValues(moved.topic, moved.partition, 5);  // offsets 5..9, for the first worker
  ASSERT_TRUE(waitFor([&](const auto& c) {
    for (const auto i : indicesOf(c, CallKind::kOpen, 0))
      if (c[i].partitions == std::vector<TopicPartition>{moved}) return true;
    return false;
  })) << describe(calls());
  std::this_thread::sleep_for(1500ms);  // several more failing attempts
  *failing_ = false;
  ASSERT_TRUE(waitDelivered(kept, 5)) << describe(calls());
  ASSERT_TRUE(waitFor([&](const auto& c) {
    for (const auto& x : c)
      if (x.task == 0 && x.kind == CallKind::kPut && !x.threw && x.finished)
        for (const auto& r : x.records)
          if (r.tp == moved && r.offset == 9) return true;
    return false;
  })) << describe(calls());
  ASSERT_EQ(waitCommitted(moved, 10), 10) << describe(calls());

  // From its open() on the first worker until the retried batch succeeded, no put() carried a
  // record of `moved`; the retried batch itself holds only `kept`.
  const auto log = calls();
  std::optional<size_t> reopened, first_success;
  for (size_t i = 0; i < log.size(); ++i) {
    if (log[i].task != 0) continue;
    if (log[i].kind == CallKind::kOpen && log[i].partitions == std::vector<TopicPartition>{moved})
      reopened = i;
    if (reopened && !first_success && log[i].kind == CallKind::kPut && !log[i].records.empty() &&
        !log[i].threw)
      first_success = i;
  }
  ASSERT_TRUE(reopened && first_success) << describe(log);
  for (size_t i = *reopened; i <= *first_success; ++i) {
    if (log[i].task != 0 || log[i].kind != CallKind::kPut) continue;
    for (const auto& r : log[i].records) EXPECT_EQ(r.tp, kept) << describe(log);
  }
  EXPECT_GT(std::count_if(log.begin() + static_cast<long>(*reopened),
                          log.begin() + static_cast<long>(*first_success),
                          [](const Call& x) { return x.task == 0 && x.threw; }),
            0)
      << "the partition came back after the redelivery ended, not during it\n"
      << describe(log);
  expectPutsOnlyForOpenPartitions(log);
}

}  // namespace
}  // namespace ksink::test
