// The commit cycle on the embedded broker: what preCommit() receives, what reaches the group
// coordinator, and how failed, slow and skipped commits behave (Connect sink acceptance scenarios,
// scenarios 2, 6–16 and 31).
#include <thread>

#include "support/worker_scenario.h"

namespace ksink::test {
namespace {

using namespace std::chrono_literals;

// Index of the first call of `kind` at or after `from` that matches `pred`.
std::optional<size_t> findKind(const std::vector<Call>& calls, CallKind kind, size_t from = 0,
                               const std::function<bool(const Call&)>& pred = {}) {
  return findCall(
      calls, [&](const Call& c) { return c.kind == kind && (!pred || pred(c)); }, from);
}

int64_t offsetOf(const Call& c, const TopicPartition& tp) {
  auto it = c.offsets.find(tp);
  return it == c.offsets.end() ? -1 : it->second;
}

TEST_F(WorkerScenarios, S02_IdleTopicStillGetsEmptyPutsAndPeriodicPreCommits) {
  mock().createTopic(topic_, 2);
  WorkerRunner worker(props(), factory());

  auto finishedPreCommits = [](const std::vector<Call>& log) {
    std::vector<size_t> out;
    for (size_t i = 0; i < log.size(); ++i)
      if (log[i].kind == CallKind::kPreCommit && log[i].finished) out.push_back(i);
    return out;
  };
  ASSERT_TRUE(waitFor([&](const auto& c) { return finishedPreCommits(c).size() >= 3; }))
      << describe(calls());
  const auto log = calls();
  const auto open = findKind(log, CallKind::kOpen);
  ASSERT_TRUE(open);
  const OffsetMap start{{tp0_, 0}, {tp1_, 0}};
  const auto pre_commits = finishedPreCommits(log);
  EXPECT_GT(pre_commits.front(), *open);
  ASSERT_GE(pre_commits.size(), 3u);
  for (size_t k = 0; k < pre_commits.size(); ++k) {
    const auto& pc = log[pre_commits[k]];
    EXPECT_EQ(pc.offsets, start) << describe(pc);
    // The default preCommit flushes exactly what it was given.
    ASSERT_LT(pre_commits[k] + 1, log.size());
    EXPECT_EQ(log[pre_commits[k] + 1].kind, CallKind::kFlush);
    EXPECT_EQ(log[pre_commits[k] + 1].offsets, start);
    if (k == 0) continue;
    // Between two commit cycles (500 ms) the loop keeps calling put() with nothing to deliver,
    // about once per 100 ms poll; a busy loop would call it hundreds of times.
    size_t empty_puts = 0;
    for (size_t i = pre_commits[k - 1]; i < pre_commits[k]; ++i)
      if (log[i].kind == CallKind::kPut && log[i].records.empty()) ++empty_puts;
    EXPECT_GE(empty_puts, 1u);
    EXPECT_LE(empty_puts, 20u);
  }
  // Nothing changed since the start positions, so nothing was sent to the coordinator.
  EXPECT_EQ(committed({tp0_, tp1_}), OffsetMap{});
}

TEST_F(WorkerScenarios, S06_DefaultCommitIsLastDeliveredPlusOne) {
  mock().createTopic(topic_, 2);
  mock().produceValues(topic_, 0, 3);
  WorkerRunner worker(props(), factory());

  ASSERT_EQ(waitCommitted(tp0_, 3), 3) << describe(calls());
  EXPECT_EQ(committed({tp0_, tp1_}), (OffsetMap{{tp0_, 3}, {tp1_, 0}}));
  const auto log = calls();
  EXPECT_EQ(deliveredOffsets(log, tp0_), (std::vector<int64_t>{0, 1, 2}));
  const auto last_put = findCall(log, [&](const Call& c) { return contains(c, tp0_, 2); });
  ASSERT_TRUE(last_put);
  const auto pc = findKind(log, CallKind::kPreCommit, *last_put);
  ASSERT_TRUE(pc) << describe(log);
  EXPECT_EQ(log[*pc].offsets, (OffsetMap{{tp0_, 3}, {tp1_, 0}}));
  ASSERT_EQ(log[*pc + 1].kind, CallKind::kFlush);
  EXPECT_EQ(log[*pc + 1].offsets, log[*pc].offsets);
}

TEST_F(WorkerScenarios, S07_PreCommitReturningLessCommitsOnlyThatAndRestartResumesThere) {
  mock().createTopic(topic_, 1);
  mock().produceValues(topic_, 0, 10);
  script_->preCommitReturns([&](const OffsetMap& current) {
    return OffsetMap{{tp0_, std::min<int64_t>(current.at(tp0_), 6)}};
  });
  {
    WorkerRunner worker(props(), factory());
    ASSERT_TRUE(waitDelivered(tp0_, 10)) << describe(calls());
    ASSERT_EQ(waitCommitted(tp0_, 6), 6);
    // Later cycles (and the final commit at stop) keep it there.
    const auto seen = select(calls(), CallKind::kPreCommit).size();
    ASSERT_TRUE(
        waitFor([&](const auto& c) { return select(c, CallKind::kPreCommit).size() >= seen + 2; }));
  }
  EXPECT_EQ(mock().committed(group_, tp0_), 6);

  // A new worker in the same group starts where the commit says.
  auto restarted = std::make_shared<CallLog>();
  WorkerRunner worker(props(),
                      RecordingSink::factory(restarted, std::make_shared<SinkScript>(), 1));
  ASSERT_TRUE(restarted->waitUntil(
      [&](const auto& c) { return deliveredOffsets(c, tp0_).size() >= 4; }, kWait))
      << describe(restarted->calls());
  EXPECT_EQ(deliveredOffsets(restarted->calls(), tp0_), (std::vector<int64_t>{6, 7, 8, 9}));
}

TEST_F(WorkerScenarios, S08_PreCommitAboveDeliveredIsIgnoredForThatPartition) {
  mock().createTopic(topic_, 2);
  mock().produceValues(topic_, 0, 5);
  mock().produceValues(topic_, 1, 3);
  script_->preCommitReturns([&](const OffsetMap& current) {
    return OffsetMap{{tp0_, current.at(tp0_) + 1}, {tp1_, current.at(tp1_)}};
  });
  WorkerRunner worker(props(), factory());

  ASSERT_TRUE(waitDelivered(tp0_, 5) && waitDelivered(tp1_, 3)) << describe(calls());
  ASSERT_EQ(waitCommitted(tp1_, 3), 3);
  const auto seen = select(calls(), CallKind::kPreCommit).size();
  ASSERT_TRUE(
      waitFor([&](const auto& c) { return select(c, CallKind::kPreCommit).size() >= seen + 1; }));
  // t-0 keeps its previous value (its start position), never the offset the task invented.
  EXPECT_EQ(committed({tp0_, tp1_}), (OffsetMap{{tp0_, 0}, {tp1_, 3}}));
}

TEST_F(WorkerScenarios, S09_PreCommitOffsetsOfUnassignedPartitionsAreIgnored) {
  const std::string other = topic_ + "-other";
  mock().createTopic(topic_, 2);
  mock().createTopic(other, 1);
  mock().produceValues(topic_, 0, 3);
  const TopicPartition not_subscribed{other, 0};
  const TopicPartition not_existing{topic_, 7};
  script_->preCommitReturns([&](const OffsetMap& current) {
    auto out = current;
    out[not_subscribed] = 2;
    out[not_existing] = 2;
    return out;
  });
  WorkerRunner worker(props(), factory());

  ASSERT_EQ(waitCommitted(tp0_, 3), 3) << describe(calls());
  const auto seen = select(calls(), CallKind::kPreCommit).size();
  ASSERT_TRUE(
      waitFor([&](const auto& c) { return select(c, CallKind::kPreCommit).size() >= seen + 1; }));
  EXPECT_EQ(committed({tp0_, tp1_, not_subscribed, not_existing}),
            (OffsetMap{{tp0_, 3}, {tp1_, 0}}));
}

TEST_F(WorkerScenarios, S10_EmptyPreCommitCommitsNothingAndTaskKeepsRunning) {
  mock().createTopic(topic_, 1);
  mock().produceValues(topic_, 0, 5);
  script_->preCommitReturns([](const OffsetMap&) { return OffsetMap{}; });
  TaskRunner task(props(), sink());

  ASSERT_TRUE(waitDelivered(tp0_, 5)) << describe(calls());
  const auto seen = select(calls(), CallKind::kPreCommit).size();
  ASSERT_TRUE(
      waitFor([&](const auto& c) { return select(c, CallKind::kPreCommit).size() >= seen + 2; }));
  mock().produceValues(topic_, 0, 5, "v", 5);
  ASSERT_TRUE(waitDelivered(tp0_, 10)) << describe(calls());

  EXPECT_FALSE(task.run().finished()) << task.run().errorMessage();
  EXPECT_EQ(committed({tp0_}), OffsetMap{});
  // An opted-out commit counts as completed, not as failed (KIP-89).
  EXPECT_GE(task.metrics().offset_commit_completion_total.load(), 2u);
  EXPECT_EQ(task.metrics().offset_commit_failure_total.load(), 0u);
}

TEST_F(WorkerScenarios, S11_UnchangedOffsetsSendNoCommitRequest) {
  mock().createTopic(topic_, 1);
  mock().produceValues(topic_, 0, 5);
  TaskRunner task(props(), sink());
  ASSERT_EQ(waitCommitted(tp0_, 5), 5) << describe(calls());

  // A trap for the next OffsetCommit request: it fails (non-retriable, so at once). While the
  // offsets do not change, no request may be sent, so the trap must stay armed.
  mock().pushRequestErrors(kOffsetCommit, {RD_KAFKA_RESP_ERR_OFFSET_METADATA_TOO_LARGE});
  const auto seen = select(calls(), CallKind::kPreCommit).size();
  ASSERT_TRUE(waitFor([&](const auto& c) {
    const auto pcs = select(c, CallKind::kPreCommit);
    return pcs.size() >= seen + 2 && pcs.back().finished;
  }));
  for (const auto& pc : select(calls(), CallKind::kPreCommit)) {
    if (pc.finished && offsetOf(pc, tp0_) == 5) {
      EXPECT_EQ(pc.returned, (OffsetMap{{tp0_, 5}}));
    }
  }
  EXPECT_EQ(task.metrics().offset_commit_failure_total.load(), 0u);

  // The first changed commit springs the trap; the one after it succeeds.
  mock().produceValues(topic_, 0, 1, "v", 5);
  ASSERT_EQ(waitCommitted(tp0_, 6), 6) << describe(calls());
  EXPECT_EQ(task.metrics().offset_commit_failure_total.load(), 1u);
}

TEST_F(WorkerScenarios, S12_FlushFailureRewindsToLastCommittedAndRedelivers) {
  mock().createTopic(topic_, 1);
  mock().produceValues(topic_, 0, 4);
  mock().seedCommitted(group_, {{tp0_, 1}});
  script_->flushThrowsOnce([&](const OffsetMap& current) { return current.at(tp0_) == 4; });
  WorkerRunner worker(props(), factory());

  ASSERT_EQ(waitCommitted(tp0_, 4), 4) << describe(calls());
  const auto log = calls();
  const auto failed = findKind(log, CallKind::kFlush, 0, [](const Call& c) { return c.threw; });
  ASSERT_TRUE(failed) << describe(log);
  EXPECT_EQ(log[*failed].offsets, (OffsetMap{{tp0_, 4}}));
  // Records 1..3 once before the failure, and once more after it: consumption went back to the
  // last committed offset, 1.
  EXPECT_EQ(deliveredOffsets(log, tp0_), (std::vector<int64_t>{1, 2, 3, 1, 2, 3}));
  const auto redelivered = findCall(
      log, [&](const Call& c) { return c.kind == CallKind::kPut && contains(c, tp0_, 1); },
      *failed);
  EXPECT_TRUE(redelivered) << describe(log);
  EXPECT_FALSE(worker.run().finished()) << worker.run().errorMessage();
}

TEST_F(WorkerScenarios, S13_NonRetriableCommitErrorLosesNoProgress) {
  mock().createTopic(topic_, 1);
  mock().produceValues(topic_, 0, 5);
  mock().pushRequestErrors(kOffsetCommit, {RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED});
  TaskRunner task(props(), sink());

  ASSERT_EQ(waitCommitted(tp0_, 5), 5) << describe(calls());
  EXPECT_EQ(task.metrics().offset_commit_failure_total.load(), 1u);
  // No rewind: each record was put exactly once; the failed commit was simply sent again.
  EXPECT_EQ(deliveredOffsets(calls(), tp0_), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_FALSE(task.run().finished()) << task.run().errorMessage();
}

TEST_F(WorkerScenarios, S13_RetriableCommitErrorsLoseNoProgress) {
  mock().createTopic(topic_, 1);
  mock().produceValues(topic_, 0, 5);
  // librdkafka tries an OffsetCommit three times: six timeouts fail exactly two commits.
  mock().pushRequestErrors(
      kOffsetCommit, std::vector<rd_kafka_resp_err_t>(6, RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT));
  TaskRunner task(props(), sink());

  ASSERT_EQ(waitCommitted(tp0_, 5), 5) << describe(calls());
  EXPECT_EQ(task.metrics().offset_commit_failure_total.load(), 2u);
  EXPECT_EQ(deliveredOffsets(calls(), tp0_), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_FALSE(task.run().finished()) << task.run().errorMessage();
}

TEST_F(WorkerScenarios, S14_CommitTimeoutIsCountedWithoutBlockingAndRetried) {
  mock().createTopic(topic_, 1);
  mock().produceValues(topic_, 0, 5);
  // The coordinator answers the first OffsetCommit only after 1.2 s; the flush timeout is 0.5 s.
  // (The mock stores the offsets when it reads the request; only the answer is late.)
  mock().pushBrokerRequestRtts(1, kOffsetCommit, {{RD_KAFKA_RESP_ERR_NO_ERROR, 1200}});
  auto p = props();
  p["offset.flush.timeout.ms"] = "500";
  TaskRunner task(p, sink());

  ASSERT_TRUE(waitFor([&](const auto&) {
    return task.metrics().offset_commit_failure_total.load() >= 1;
  })) << describe(calls());
  const auto timed_out_at = Clock::now();
  // The loop went on while the commit was outstanding: put() kept being called.
  ASSERT_TRUE(waitFor([&](const auto& c) {
    return !c.empty() && c.back().kind == CallKind::kPut && c.back().at > timed_out_at;
  }));
  const auto log = calls();
  const auto pc =
      findKind(log, CallKind::kPreCommit, 0, [&](const Call& c) { return offsetOf(c, tp0_) == 5; });
  ASSERT_TRUE(pc) << describe(log);
  const auto next_put = findKind(log, CallKind::kPut, *pc);
  ASSERT_TRUE(next_put);
  EXPECT_LT(log[*next_put].at - log[*pc].at, 500ms);

  // A later cycle commits again, and newer offsets reach the broker.
  mock().produceValues(topic_, 0, 5, "v", 5);
  ASSERT_EQ(waitCommitted(tp0_, 10), 10) << describe(calls());
  ASSERT_TRUE(waitFor(
      [&](const auto&) { return task.ledger().at(tp0_).committed == std::optional<int64_t>(10); }));
  EXPECT_GE(task.metrics().offset_commit_completion_total.load(), 1u);
  EXPECT_FALSE(task.run().finished()) << task.run().errorMessage();
}

TEST_F(WorkerScenarios, S15_LateResultOfATimedOutCommitIsIgnored) {
  mock().createTopic(topic_, 1);
  mock().produceValues(topic_, 0, 5);
  mock().pushBrokerRequestRtts(1, kOffsetCommit, {{RD_KAFKA_RESP_ERR_NO_ERROR, 1200}});
  auto p = props();
  p["offset.flush.timeout.ms"] = "500";
  TaskRunner task(p, sink());

  ASSERT_TRUE(waitDelivered(tp0_, 5)) << describe(calls());
  // Records 5..9 arrive while the first commit (of 5) is still outstanding.
  mock().produceValues(topic_, 0, 5, "v", 5);
  ASSERT_EQ(waitCommitted(tp0_, 10), 10) << describe(calls());
  ASSERT_TRUE(waitFor(
      [&](const auto&) { return task.ledger().at(tp0_).committed == std::optional<int64_t>(10); }));
  // The late answer to the timed-out commit was recognised as stale, not applied.
  EXPECT_GE(task.metrics().offset_commit_skip_total.load(), 1u);
  const auto ledger = task.ledger().at(tp0_);
  EXPECT_EQ(ledger, (PartitionOffsets{10, 10, 10}));
}

TEST_F(WorkerScenarios, S16_RequestCommitCommitsRightAfterPutAndRearmsTheTimer) {
  mock().createTopic(topic_, 1);
  auto p = props();
  p["offset.flush.interval.ms"] = "2000";
  script_->requestCommitWhenPutContains(tp0_, 2);
  ManualClock clock;
  log_->useClock(clock);
  TaskRunner task(p, sink(), clock);
  ASSERT_TRUE(waitFor([](const auto& c) { return select(c, CallKind::kOpen).size() == 1; }))
      << describe(calls());
  // A periodic cycle at 2 s arms the next for 4 s; the records come half an interval later.
  advanceAndSettle(clock, 2000ms);
  advanceAndSettle(clock, 500ms);
  mock().produceValues(topic_, 0, 3);

  auto requestedAfter = [&](const std::vector<Call>& c) -> std::optional<size_t> {
    const auto put = findCall(c, [&](const Call& call) { return contains(call, tp0_, 2); });
    if (!put) return std::nullopt;
    return findKind(c, CallKind::kPreCommit, *put + 1);
  };
  ASSERT_TRUE(waitFor([&](const auto& c) { return requestedAfter(c).has_value(); }))
      << describe(calls());
  advanceAndSettle(clock, 0ms);  // the commit is sent before the clock moves on
  auto log = calls();
  const auto put = findCall(log, [&](const Call& c) { return contains(c, tp0_, 2); });
  const auto requested = requestedAfter(log);
  EXPECT_EQ(log[*requested].offsets, (OffsetMap{{tp0_, 3}}));
  EXPECT_EQ(log[*requested].at, log[*put].at);  // right after the put(), at the same time
  // The periodic timer restarted from the requested commit (KAFKA-8229): nothing at 4 s, the next
  // cycle exactly one interval after the request.
  advanceAndSettle(clock, 1999ms);
  EXPECT_FALSE(findKind(calls(), CallKind::kPreCommit, *requested + 1)) << describe(calls());
  clock.advance(1ms);
  ASSERT_TRUE(waitFor([&](const auto& c) {
    return findKind(c, CallKind::kPreCommit, *requested + 1).has_value();
  })) << describe(calls());
  log = calls();
  const auto next = findKind(log, CallKind::kPreCommit, *requested + 1);
  EXPECT_EQ(log[*next].at - log[*requested].at, 2000ms);
  EXPECT_EQ(waitCommitted(tp0_, 3), 3);
}

TEST_F(WorkerScenarios, S31_GracefulStopCommitsFinalOffsetsBeforeStop) {
  mock().createTopic(topic_, 1);
  mock().produceValues(topic_, 0, 10);
  auto p = props();
  p["offset.flush.interval.ms"] = "60000";
  WorkerRunner worker(p, factory());
  ASSERT_TRUE(waitDelivered(tp0_, 10)) << describe(calls());
  ASSERT_EQ(committed({tp0_}), OffsetMap{});

  ASSERT_TRUE(worker.stopAndMeasure(10s));
  EXPECT_EQ(worker.run().error(), nullptr) << worker.run().errorMessage();
  const auto log = calls();
  const auto last_put = findCall(log, [&](const Call& c) { return contains(c, tp0_, 9); });
  ASSERT_TRUE(last_put);
  std::vector<CallKind> after;
  for (size_t i = *last_put + 1; i < log.size(); ++i)
    if (log[i].kind != CallKind::kPut) after.push_back(log[i].kind);
  EXPECT_EQ(after, (std::vector<CallKind>{CallKind::kPreCommit, CallKind::kFlush, CallKind::kClose,
                                          CallKind::kStop}))
      << describe(log);
  EXPECT_EQ(select(log, CallKind::kPreCommit).back().offsets, (OffsetMap{{tp0_, 10}}));
  EXPECT_EQ(select(log, CallKind::kClose).back().partitions, std::vector<TopicPartition>{tp0_});
  EXPECT_EQ(log.back().kind, CallKind::kStop);
  EXPECT_EQ(mock().committed(group_, tp0_), 10);
}

}  // namespace
}  // namespace ksink::test
