// SourceTaskCalls: commitRecord() and commit() made in the order the commits were taken, whatever
// thread makes them first, and whatever the task's code throws.
#include "source_task_calls.h"

#include <gtest/gtest.h>

#include <future>
#include <string>
#include <vector>

namespace ksink {
namespace {

class RecordingTask final : public detail::SourceTaskDriver {
 public:
  void start(const Config&, const detail::OffsetEntryReader&) override {}
  std::vector<detail::PolledRecord> poll() override { return {}; }
  void wake() override {}
  void commit() override { calls.push_back("commit"); }
  void commitRecord(uint64_t id, const std::optional<RecordMetadata>& metadata) override {
    calls.push_back("commitRecord " + std::to_string(id) + (metadata ? "" : " dropped"));
    if (id == throw_non_standard_at) throw 42;  // not a std::exception
  }
  void stop() override {}
  std::string version() const override { return "test"; }

  std::vector<std::string> calls;
  uint64_t throw_non_standard_at = ~0ull;
};

TEST(SourceTaskCallsTest, ALaterTurnWaitsForTheEarlierOneWhicheverThreadComesFirst) {
  RecordingTask task;
  SourceTaskCalls calls(task, "conn-0");
  const uint64_t first = calls.takeTurn();
  const uint64_t second = calls.takeTurn();
  SourceTaskCalls::Due a{{{1, RecordMetadata{}}}, false};
  SourceTaskCalls::Due b{{{2, std::nullopt}}, true};
  auto later = std::async(std::launch::async, [&] { calls.make(second, {&b}); });
  EXPECT_EQ(later.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout)
      << "the second turn ran before the first";
  calls.make(first, {&a});
  later.get();
  EXPECT_EQ(task.calls,
            (std::vector<std::string>{"commitRecord 1", "commitRecord 2 dropped", "commit"}));
}

TEST(SourceTaskCallsTest, WhatTheTasksCodeThrowsNeitherStopsTheCallsNorBlocksTheNextTurn) {
  RecordingTask task;
  task.throw_non_standard_at = 1;
  SourceTaskCalls calls(task, "conn-0");
  const SourceTaskCalls::Due a{{{1, RecordMetadata{}}, {2, RecordMetadata{}}}, true};
  const SourceTaskCalls::Due b{{{3, RecordMetadata{}}}, false};
  EXPECT_NO_THROW(calls.make(a));
  auto next = std::async(std::launch::async, [&] { calls.make(b); });
  ASSERT_EQ(next.wait_for(std::chrono::seconds(10)), std::future_status::ready)
      << "the next turn waits for ever";
  next.get();
  EXPECT_EQ(task.calls, (std::vector<std::string>{"commitRecord 1", "commitRecord 2", "commit",
                                                  "commitRecord 3"}));
}

}  // namespace
}  // namespace ksink
