// SourcePoll: a source task's poll() as both task kinds call it — counted in the poll metrics, a
// RetriableError shown in /status and retried only after the backoff, any other error passed on.
#include "source_poll.h"

#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>

#include "ksink/retriable_error.h"
#include "manual_clock.h"

namespace ksink {
namespace {

using namespace std::chrono_literals;

class SourcePollTest : public ::testing::Test {
 protected:
  std::vector<detail::PolledRecord> records(size_t n) {
    return std::vector<detail::PolledRecord>(n);
  }

  // Sleeps pass at once, moving the clock: the test's thread is the task's.
  test::ManualClock clock{test::ManualClock::Sleeps::kPassAtOnce};
  std::mutex mutex;
  SourceCounters counters;
  PublishedStatus status;
  TaskPause pause;
  TaskProgress progress{clock, 1000ms};
  SourcePoll poll{"conn-0", clock, mutex, counters, status, pause, progress};
  std::string shown() const { return status.status(0).last_error; }
};

TEST_F(SourcePollTest, EachPollIsCountedWithItsRecordsAndItsTime) {
  auto polled = poll(
      [&] {
        clock.advance(30ms);
        return records(4);
      },
      10ms);
  ASSERT_TRUE(polled.has_value());
  EXPECT_EQ(polled->size(), 4u);
  polled = poll(
      [&] {
        clock.advance(10ms);
        return records(0);
      },
      10ms);
  ASSERT_TRUE(polled.has_value());
  EXPECT_EQ(counters.poll_batch_count, 2u);
  EXPECT_EQ(counters.source_record_poll_total, 4u);
  EXPECT_DOUBLE_EQ(counters.poll_batch_avg_time_ms, 20.0);
  EXPECT_DOUBLE_EQ(counters.poll_batch_max_time_ms, 30.0);
  EXPECT_EQ(shown(), "");
}

TEST_F(SourcePollTest, WhilePausedPollIsNotCalledAndTheWaitIsTheIdleWait) {
  int calls = 0;
  auto counted = [&] {
    ++calls;
    return records(1);
  };
  pause.pause();
  const auto before = clock.now();
  EXPECT_FALSE(poll(counted, 10ms).has_value());
  EXPECT_EQ(clock.now() - before, 10ms);
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(pause.shown("RUNNING"), "PAUSED");
  EXPECT_EQ(pause.shown("FAILED"), "FAILED");
  pause.resume();
  EXPECT_TRUE(poll(counted, 10ms).has_value());
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(counters.poll_batch_count, 1u);
}

TEST_F(SourcePollTest, ARetriableErrorIsShownAndPollIsNotCalledAgainBeforeTheBackoff) {
  int calls = 0;
  auto failing = [&]() -> std::vector<detail::PolledRecord> {
    ++calls;
    throw RetriableError("database restarting");
  };
  EXPECT_FALSE(poll(failing, 10ms).has_value());
  EXPECT_EQ(shown(), "poll() failed, retrying: database restarting");
  clock.advance(SourcePoll::kRetryBackoff - 1ms);
  EXPECT_FALSE(poll(failing, 10ms).has_value());
  EXPECT_EQ(calls, 1);  // still backing off
  ASSERT_FALSE(clock.sleeps().empty());
  EXPECT_EQ(clock.sleeps().back(), 1ms) << "waits the rest of the backoff, on the task's clock";
  auto polled = poll(
      [&] {
        ++calls;
        return records(2);
      },
      10ms);
  ASSERT_TRUE(polled.has_value());
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(counters.poll_batch_count, 1u);  // the failed poll is not a batch
  EXPECT_EQ(counters.source_record_poll_total, 2u);
  EXPECT_EQ(shown(), "") << "recovered: /status no longer says it is retrying";
}

// The stall report: a poll() that has not returned for the task's stall time shows as one, with
// how long; it ends when poll() returns, or throws to be retried.
TEST_F(SourcePollTest, APollThatDoesNotReturnForTheStallTimeIsAStallUntilItReturns) {
  std::optional<TaskProgress::Stall> inside_early, inside_late;
  poll(
      [&] {
        clock.advance(999ms);
        inside_early = progress.stall();
        clock.advance(600ms);
        inside_late = progress.stall();
        return records(1);
      },
      10ms);
  EXPECT_FALSE(inside_early.has_value());
  ASSERT_TRUE(inside_late.has_value());
  EXPECT_STREQ(inside_late->what, "poll() has not returned");
  EXPECT_EQ(inside_late->for_, 1599ms);
  EXPECT_FALSE(progress.stall().has_value()) << "returned: no stall";
  clock.advance(5s);
  EXPECT_FALSE(progress.stall().has_value()) << "between polls nothing waits";
  poll(
      [&]() -> std::vector<detail::PolledRecord> {
        clock.advance(2s);
        throw RetriableError("away");
      },
      10ms);
  EXPECT_FALSE(progress.stall().has_value()) << "a poll() to retry returned too";
}

TEST_F(SourcePollTest, AnyOtherErrorIsPassedOn) {
  EXPECT_THROW(
      poll([]() -> std::vector<detail::PolledRecord> { throw std::runtime_error("broke"); }, 10ms),
      std::runtime_error);
  EXPECT_EQ(shown(), "");
  EXPECT_EQ(counters.poll_batch_count, 0u);
}

}  // namespace
}  // namespace ksink
