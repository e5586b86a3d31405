// Failures on the embedded broker: RetriableError from put() and its pacing, fatal task errors,
// exceptions from open()/close(), and a group coordinator that goes away
// (Connect sink acceptance scenarios 20 and 24–29).
#include <algorithm>
#include <functional>
#include <optional>
#include <thread>

#include "support/worker_scenario.h"

namespace ksink::test {
namespace {

using namespace std::chrono_literals;

std::vector<int64_t> range(int64_t from, int64_t to) {
  std::vector<int64_t> out;
  for (int64_t o = from; o < to; ++o) out.push_back(o);
  return out;
}

// The put() calls of `log` that threw.
std::vector<size_t> failedPuts(const std::vector<Call>& log) {
  std::vector<size_t> out;
  for (size_t i = 0; i < log.size(); ++i)
    if (log[i].kind == CallKind::kPut && log[i].threw) out.push_back(i);
  return out;
}

// When put() was called for the failed attempts and for the success after them; empty (and a test
// failure) unless there were `failures` failed attempts and then a success.
std::vector<Clock::time_point> putAttempts(const std::vector<Call>& log, size_t failures) {
  const auto failed = failedPuts(log);
  EXPECT_EQ(failed.size(), failures);
  if (failed.size() != failures) return {};
  const auto success = findCall(
      log, [](const Call& c) { return c.kind == CallKind::kPut; }, failed.back() + 1);
  EXPECT_TRUE(success);
  if (!success) return {};
  std::vector<Clock::time_point> attempts;
  for (auto i : failed) attempts.push_back(log[i].at);
  attempts.push_back(log[*success].at);
  return attempts;
}

class RetriablePut : public WorkerScenarios {
 protected:
  // Ten records on a one-partition topic, at most three per put().
  Properties retryProps() {
    mock().createTopic(topic_, 1);
    mock().produceValues(topic_, 0, 10);
    auto p = props();
    p["consumer.max.poll.records"] = "3";
    return p;
  }

  // With the task on `clock` and its first put() failed: moves the clock to each retry in turn and
  // expects it exactly `delays[k]` after the attempt before it — none a millisecond earlier.
  // `after_retry(k)` runs once retry k (from 1) has returned.
  void expectRetriesAfter(ManualClock& clock, const std::vector<milliseconds>& delays,
                          const std::function<void(size_t)>& after_retry = {}) {
    auto begun = [](const std::vector<Call>& c) { return select(c, CallKind::kPut).size(); };
    auto finished = [](const std::vector<Call>& c) {
      return static_cast<size_t>(std::ranges::count_if(
          c, [](const Call& call) { return call.kind == CallKind::kPut && call.finished; }));
    };
    ASSERT_TRUE(waitFor([](const auto& c) { return failedPuts(c).size() == 1; }))
        << describe(calls());
    for (size_t k = 0; k < delays.size(); ++k) {
      // The worker reads the clock after put() threw, to schedule the retry: let it finish first.
      advanceAndSettle(clock, 0ms);
      const auto before = begun(calls());
      advanceAndSettle(clock, delays[k] - 1ms);
      EXPECT_EQ(begun(calls()), before)
          << "retry " << k + 1 << " came early: " << describe(calls());
      clock.advance(1ms);
      ASSERT_TRUE(waitFor([&](const auto& c) { return finished(c) > before; }))
          << describe(calls());
      if (after_retry) after_retry(k + 1);
    }
    ASSERT_TRUE(waitDelivered(tp0_, 10)) << describe(calls());
    const auto attempts = putAttempts(calls(), delays.size());
    ASSERT_EQ(attempts.size(), delays.size() + 1) << describe(calls());
    for (size_t k = 1; k < attempts.size(); ++k)
      EXPECT_EQ(attempts[k] - attempts[k - 1], delays[k - 1]) << "retry " << k;
  }
};

TEST_F(RetriablePut, S24_RetriableErrorRedeliversExactlyTheSameBatch) {
  const auto p = retryProps();
  script_->retriableWhenPutContains(tp0_, 5, 1, 100ms);
  WorkerRunner worker(p, factory());

  ASSERT_TRUE(waitDelivered(tp0_, 10)) << describe(calls());
  const auto log = calls();
  const auto failed = failedPuts(log);
  ASSERT_EQ(failed.size(), 1u) << describe(log);
  // The very next put() gets the same records, in the same order, with the same contents.
  const auto next = findCall(
      log, [](const Call& c) { return c.kind == CallKind::kPut; }, failed[0] + 1);
  ASSERT_TRUE(next);
  EXPECT_FALSE(log[*next].threw);
  EXPECT_EQ(log[*next].records, log[failed[0]].records) << describe(log);
  EXPECT_TRUE(contains(log[*next], tp0_, 5));
  // Nothing skipped, nothing delivered twice.
  EXPECT_EQ(deliveredOffsets(log, tp0_), range(0, 10));
}

TEST_F(RetriablePut, S25_OffsetsOfARetriedBatchAreCommittedOnceItSucceeds) {
  const auto p = retryProps();
  script_->retriableWhenPutContains(tp0_, 9, 2, 100ms);
  WorkerRunner worker(p, factory());

  ASSERT_EQ(waitCommitted(tp0_, 10), 10) << describe(calls());
  const auto log = calls();
  const auto failed = failedPuts(log);
  ASSERT_EQ(failed.size(), 2u) << describe(log);
  const auto retried = findCall(
      log, [](const Call& c) { return c.kind == CallKind::kPut; }, failed.back() + 1);
  ASSERT_TRUE(retried && !log[*retried].threw);
  const auto pc = findCall(
      log, [](const Call& c) { return c.kind == CallKind::kPreCommit; }, *retried);
  ASSERT_TRUE(pc) << describe(log);
  EXPECT_EQ(log[*pc].offsets, (OffsetMap{{tp0_, 10}}));
}

TEST_F(RetriablePut, S26_NothingOfAFailingBatchIsCommittedWhileItFails) {
  const auto p = retryProps();
  // Fails for 2 s (ten retries 200 ms apart): the commit cycles at 0.5, 1 and 1.5 s come while it
  // fails; the one at 2 s comes with the retry that succeeds.
  script_->retriableWhenPutContains(tp0_, 5, 10, 200ms);
  ManualClock clock;
  log_->useClock(clock);
  TaskRunner task(p, sink(), clock);

  std::optional<int64_t> during;
  expectRetriesAfter(clock, std::vector<milliseconds>(10, 200ms), [&](size_t retry) {
    if (retry == 8) during = mock().committed(group_, tp0_);
  });
  advanceAndSettle(clock, 500ms);  // to the next commit cycle
  ASSERT_EQ(waitCommitted(tp0_, 10), 10);

  const auto log = calls();
  const auto failed = failedPuts(log);
  ASSERT_EQ(failed.size(), 10u);
  const int64_t batch_start = log[failed.front()].records.front().offset;
  ASSERT_LE(batch_start, 5);
  size_t pre_commits_while_failing = 0;
  for (size_t i = failed.front(); i < failed.back(); ++i) {
    if (log[i].kind != CallKind::kPreCommit) continue;
    ++pre_commits_while_failing;
    EXPECT_EQ(log[i].offsets, (OffsetMap{{tp0_, batch_start}})) << describe(log[i]);
  }
  // At most those three; one may be skipped while the one before is still in flight.
  EXPECT_GE(pre_commits_while_failing, 2u) << describe(log);
  EXPECT_LE(pre_commits_while_failing, 3u) << describe(log);
  ASSERT_TRUE(during);
  EXPECT_LE(*during, batch_start);
}

TEST_F(RetriablePut, S27_RetryComesAfterTheTaskRequestedTimeout) {
  const auto p = retryProps();
  script_->retriableWhenPutContains(tp0_, 0, 3, 200ms);
  ManualClock clock;
  log_->useClock(clock);
  TaskRunner task(p, sink(), clock);

  expectRetriesAfter(clock, {200ms, 200ms, 200ms});
}

// Connect retries at the next commit time when the task sets no timeout; ksink backs off
// exponentially from 300 ms, capped by errors.retry.delay.max.ms (README, "Choices where Kafka Connect is
// silent or where ksink differs").
TEST_F(RetriablePut, S27_RetryBacksOffExponentiallyUpToTheCap) {
  auto p = retryProps();
  p["errors.retry.delay.max.ms"] = "650";
  script_->retriableWhenPutContains(tp0_, 0, 3, std::nullopt);
  ManualClock clock;
  log_->useClock(clock);
  TaskRunner task(p, sink(), clock);

  expectRetriesAfter(clock, {300ms, 600ms, 650ms});
}

TEST_F(RetriablePut, S31_StopWhileRedeliveringCommitsOnlyWhatWasPutAndClosesPromptly) {
  const auto p = retryProps();
  script_->retriableWhenPutContains(tp0_, 5, 1000, 200ms);  // never succeeds
  WorkerRunner worker(p, factory());
  ASSERT_TRUE(waitFor([](const auto& c) { return failedPuts(c).size() >= 2; }))
      << describe(calls());

  const auto took = worker.stopAndMeasure(10s);
  ASSERT_TRUE(took);
  // The graceful timeout is 3 s; the batch held for redelivery must not hold up the close.
  EXPECT_LT(*took, 1000ms);
  EXPECT_EQ(worker.run().error(), nullptr) << worker.run().errorMessage();
  const auto log = calls();
  const auto failed = failedPuts(log);
  const int64_t batch_start = log[failed.back()].records.front().offset;
  std::vector<CallKind> after;
  for (size_t i = failed.back() + 1; i < log.size(); ++i)
    if (log[i].kind != CallKind::kPut) after.push_back(log[i].kind);
  EXPECT_EQ(after, (std::vector<CallKind>{CallKind::kPreCommit, CallKind::kFlush, CallKind::kClose,
                                          CallKind::kStop}))
      << describe(log);
  EXPECT_EQ(select(log, CallKind::kPreCommit).back().offsets, (OffsetMap{{tp0_, batch_start}}));
  EXPECT_EQ(mock().committed(group_, tp0_), batch_start);
}

TEST_F(WorkerScenarios, S29_FatalPutErrorFailsTheTaskAfterCommittingEarlierBatches) {
  mock().createTopic(topic_, 1);
  mock().produceValues(topic_, 0, 10);
  auto p = props();
  p["consumer.max.poll.records"] = "3";
  script_->fatalWhenPutContains(tp0_, 5);
  WorkerRunner worker(p, factory());

  ASSERT_TRUE(worker.run().waitFinished(kWait)) << describe(calls());
  const auto finished_at = Clock::now();
  EXPECT_NE(worker.run().errorMessage().find("scripted fatal failure at"), std::string::npos)
      << worker.run().errorMessage();
  const auto log = calls();
  const auto failed = failedPuts(log);
  ASSERT_EQ(failed.size(), 1u) << describe(log);
  // The failed task winds down at once: nothing it holds keeps the consumer from closing until
  // task.shutdown.graceful.timeout.ms (3 s here) runs out.
  EXPECT_LT(finished_at - log[failed[0]].at, 1000ms);
  const int64_t batch_start = log[failed[0]].records.front().offset;
  // After the failing put(): the final preCommit of what was delivered before it, close, stop.
  std::vector<CallKind> after;
  for (size_t i = failed[0] + 1; i < log.size(); ++i) after.push_back(log[i].kind);
  EXPECT_EQ(after, (std::vector<CallKind>{CallKind::kPreCommit, CallKind::kFlush, CallKind::kClose,
                                          CallKind::kStop}))
      << describe(log);
  EXPECT_EQ(select(log, CallKind::kPreCommit).back().offsets, (OffsetMap{{tp0_, batch_start}}));
  EXPECT_EQ(deliveredOffsets(log, tp0_), range(0, batch_start));
  EXPECT_EQ(select(log, CallKind::kStart).size(), 1u);  // not restarted
  EXPECT_EQ(mock().committed(group_, tp0_), batch_start);
}

TEST_F(WorkerScenarios, S20_OpenThrowingFailsTheTask) {
  mock().createTopic(topic_, 1);
  mock().produceValues(topic_, 0, 3);
  script_->onOpen([](SinkTaskContext&, const std::vector<TopicPartition>&) {
    throw std::runtime_error("scripted open failure");
  });
  WorkerRunner worker(props(), factory());

  ASSERT_TRUE(worker.run().waitFinished(kWait)) << describe(calls());
  EXPECT_EQ(worker.run().errorMessage(), "scripted open failure");
  const auto log = calls();
  const auto opens = select(log, CallKind::kOpen);
  ASSERT_EQ(opens.size(), 1u);
  EXPECT_TRUE(opens[0].threw);
  EXPECT_TRUE(deliveredRecords(log).empty()) << describe(log);
  EXPECT_EQ(log.back().kind, CallKind::kStop);
  EXPECT_EQ(mock().committed(group_, tp0_), std::nullopt);
}

// A heartbeat answered with ILLEGAL_GENERATION makes librdkafka drop the assignment as lost
// (the recipe of librdkafka's own tests, 0113-cooperative_rebalance).
TEST_F(WorkerScenarios, S20_CloseThrowingOnPartitionLossFailsTheTask) {
  mock().createTopic(topic_, 1);
  mock().produceValues(topic_, 0, 5);
  script_->onClose([](SinkTaskContext&, const std::vector<TopicPartition>&) {
    throw std::runtime_error("scripted close failure");
  });
  // Only 0..4 get committed; 5..7 are delivered but not committed when the partition is lost.
  auto p = props();
  p["offset.flush.interval.ms"] = "60000";
  script_->requestCommitWhenPutContains(tp0_, 4);
  WorkerRunner worker(p, factory());
  ASSERT_EQ(waitCommitted(tp0_, 5), 5) << describe(calls());
  mock().produceValues(topic_, 0, 3, "v", 5);
  ASSERT_TRUE(waitDelivered(tp0_, 8)) << describe(calls());

  mock().pushRequestErrors(kHeartbeat, {RD_KAFKA_RESP_ERR_ILLEGAL_GENERATION});
  ASSERT_TRUE(worker.run().waitFinished(kWait)) << describe(calls());
  EXPECT_EQ(worker.run().errorMessage(), "scripted close failure");
  const auto log = calls();
  const auto closes = select(log, CallKind::kClose);
  ASSERT_EQ(closes.size(), 1u) << describe(log);  // the lost partitions are closed once
  EXPECT_TRUE(closes[0].threw);
  // Lost partitions may belong to another member already: no preCommit and no commit for them,
  // neither at the loss nor in the shutdown that follows the failure.
  const auto close_at = findCall(log, [](const Call& c) { return c.kind == CallKind::kClose; });
  for (size_t i = *close_at; i < log.size(); ++i)
    EXPECT_NE(log[i].kind, CallKind::kPreCommit) << describe(log);
  EXPECT_EQ(log.back().kind, CallKind::kStop);
  EXPECT_EQ(mock().committed(group_, tp0_), 5);
}

// The group coordinator (broker 1) is unreachable for 1–2 s while the partition's leader (broker 2)
// keeps serving fetches: commits fail or time out, delivery goes on, and once the coordinator is
// back a later cycle commits everything.
TEST_F(WorkerScenarios, CoordinatorOutageLosesNoProgress) {
  useBrokers(3);
  mock().createTopic(topic_, 1);
  mock().setPartitionLeader(topic_, 0, 2);
  mock().setGroupCoordinator(group_, 1);
  mock().produceValues(topic_, 0, 5);
  auto p = props();
  // Reconnect soon after the outage, well within the 4 s session.
  p["consumer.reconnect.backoff.max.ms"] = "300";
  TaskRunner task(p, sink());
  ASSERT_EQ(waitCommitted(tp0_, 5), 5) << describe(calls());

  mock().setBrokerDown(1);
  mock().produceValues(topic_, 0, 5, "v", 5);
  ASSERT_TRUE(waitDelivered(tp0_, 10)) << describe(calls());
  ASSERT_TRUE(waitFor([&](const auto&) {
    return task.metrics().offset_commit_failure_total.load() >= 1;
  })) << describe(calls());
  // Back before the consumer's own session timeout (4 s without a heartbeat answer) would drop
  // the assignment as lost; that would redeliver from the last commit, which is correct too but
  // not this scenario.
  mock().setBrokerUp(1);

  ASSERT_EQ(waitCommitted(tp0_, 10), 10) << describe(calls());
  EXPECT_EQ(deliveredOffsets(calls(), tp0_), range(0, 10));
  EXPECT_FALSE(task.run().finished()) << task.run().errorMessage();
}

}  // namespace
}  // namespace ksink::test
