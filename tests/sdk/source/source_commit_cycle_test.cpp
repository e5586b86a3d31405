// A source task's offset commit cycle on a manual clock: every offset.flush.interval.ms, bounded
// by offset.flush.timeout.ms; a write that fails or times out is abandoned and its entries are
// written again with the newest offers; commit() is due after every successful or empty cycle.
#include "source_commit_cycle.h"

#include <gtest/gtest.h>

#include <vector>

#include "manual_clock.h"

namespace ksink {
namespace {

using namespace std::chrono_literals;

// Keeps each write until the test completes it.
class FakeStore final : public OffsetBackingStore {
 public:
  struct Write {
    OffsetEntries entries;
    Done done;
  };
  std::vector<Write> writes;
  bool answer_on_poll = false;         // poll() completes the writes not yet answered
  test::ManualClock* clock = nullptr;  // poll() lets its timeout pass on it
  size_t answered = 0;

  void start() override {}
  void write(const OffsetEntries& entries, Done done) override {
    writes.push_back({entries, std::move(done)});
  }
  void poll(std::chrono::milliseconds timeout) override {
    if (answer_on_poll && answered < writes.size()) {
      writes[answered++].done(std::nullopt);
      return;
    }
    if (clock) clock->advance(std::max(timeout, 1ms));
  }
  std::optional<std::string> get(std::string_view) const override { return std::nullopt; }
  std::vector<std::string> keys() const override { return {}; }
};

class SourceCommitCycleTest : public ::testing::Test {
 protected:
  test::ManualClock clock;
  FakeStore store;
  SourceCommitCycle cycle{store, clock, 1000ms, 200ms};
};

TEST_F(SourceCommitCycleTest, WritesWhatWasOfferedOnlyWhenTheIntervalHasPassed) {
  cycle.offer({{"a", "1"}});
  cycle.tick();
  clock.advance(999ms);
  cycle.tick();
  EXPECT_TRUE(store.writes.empty());
  clock.advance(1ms);
  cycle.tick();
  ASSERT_EQ(store.writes.size(), 1u);
  EXPECT_EQ(store.writes[0].entries, (OffsetEntries{{"a", "1"}}));
  EXPECT_FALSE(cycle.takeCommitted()) << "not durable yet";
  store.writes[0].done(std::nullopt);
  cycle.tick();
  EXPECT_TRUE(cycle.takeCommitted());
  EXPECT_FALSE(cycle.takeCommitted()) << "commit() is due once per cycle";
  EXPECT_EQ(cycle.counters().offset_commit_completion_total, 1u);
  EXPECT_EQ(cycle.uncommitted(), 0u);
}

TEST_F(SourceCommitCycleTest, AnEmptyCycleIsASuccessAndCommitIsDueAfterIt) {
  clock.advance(1000ms);
  cycle.tick();
  EXPECT_TRUE(store.writes.empty());
  EXPECT_TRUE(cycle.takeCommitted());
  EXPECT_EQ(cycle.counters().offset_commit_completion_total, 1u);
  EXPECT_EQ(cycle.counters().offset_commit_seq_no, 1u);
}

TEST_F(SourceCommitCycleTest, ATimedOutWriteIsAbandonedAndRetriedWithTheNewestOffsets) {
  cycle.offer({{"a", "1"}, {"b", "1"}});
  clock.advance(1000ms);
  cycle.tick();
  ASSERT_EQ(store.writes.size(), 1u);
  cycle.offer({{"a", "2"}});  // newer than what is in flight
  clock.advance(200ms);       // offset.flush.timeout.ms
  cycle.tick();
  EXPECT_EQ(cycle.counters().offset_commit_failure_total, 1u);
  EXPECT_FALSE(cycle.takeCommitted());
  store.writes[0].done(std::nullopt);  // a late answer to the abandoned write: ignored
  cycle.tick();
  EXPECT_EQ(cycle.counters().offset_commit_completion_total, 0u);
  clock.advance(1000ms);
  cycle.tick();
  ASSERT_EQ(store.writes.size(), 2u);
  EXPECT_EQ(store.writes[1].entries, (OffsetEntries{{"a", "2"}, {"b", "1"}}));
  store.writes[1].done(std::nullopt);
  cycle.tick();
  EXPECT_TRUE(cycle.takeCommitted());
}

TEST_F(SourceCommitCycleTest, AFailedWriteKeepsItsEntriesForTheNextCycle) {
  cycle.offer({{"a", "1"}});
  clock.advance(1000ms);
  cycle.tick();
  store.writes[0].done(std::string("broker down"));
  cycle.tick();
  EXPECT_EQ(cycle.counters().offset_commit_failure_total, 1u);
  EXPECT_EQ(cycle.uncommitted(), 1u);
  clock.advance(1000ms);
  cycle.tick();
  ASSERT_EQ(store.writes.size(), 2u);
  EXPECT_EQ(store.writes[1].entries, (OffsetEntries{{"a", "1"}}));
}

TEST_F(SourceCommitCycleTest, TheFinalCommitWaitsForTheWriteInFlightThenWritesTheRestAtOnce) {
  cycle.offer({{"a", "1"}});
  clock.advance(1000ms);
  cycle.tick();
  cycle.offer({{"a", "2"}, {"b", "1"}});
  store.answer_on_poll = true;
  store.clock = &clock;
  EXPECT_TRUE(cycle.commitNow(clock.now() + 150ms));
  ASSERT_EQ(store.writes.size(), 2u);
  EXPECT_EQ(store.writes[1].entries, (OffsetEntries{{"a", "2"}, {"b", "1"}}));
  EXPECT_EQ(cycle.uncommitted(), 0u);
  EXPECT_TRUE(cycle.takeCommitted());
}

TEST_F(SourceCommitCycleTest, TheFinalCommitGivesUpAtItsDeadline) {
  cycle.offer({{"a", "1"}});
  store.clock = &clock;  // polls pass time, answer nothing
  EXPECT_FALSE(cycle.commitNow(clock.now() + 150ms));
  EXPECT_EQ(store.writes.size(), 1u);
  EXPECT_EQ(cycle.uncommitted(), 1u);
  EXPECT_FALSE(cycle.takeCommitted());
}

}  // namespace
}  // namespace ksink
