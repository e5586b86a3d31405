// The test kit's source scenarios fail when they should: each runs against a source broken in the
// one way it exists to catch, and must report that failure with a message naming the scenario, the
// source partition and the offsets (items). That a source keeping the contract passes them all is
// shown by the memory source's run below and the reference sources' own runs of the kit (the file
// source, the SQLite table source).
#include "ksink/testkit/source_scenarios.h"

#include <gtest/gtest.h>

#include <string>

#include "expect_caught.h"
#include "memory_sources.h"

namespace ksink::testkit::selftest {
namespace {

// Runs `scenario` against a source broken as `breakage`; at least one failure must match
// `expected`.
void expectCaught(SourceScenario scenario, SourceBreakage breakage, const std::string& name,
                  const std::string& expected) {
  selftest::expectCaught(runSourceScenario(scenario, memorySource(name, breakage)),
                         nameOf(scenario), expected);
}

TEST(SourceScenarioSelfTest, ResumesFromCommittedOffsetsCatchesATaskThatStartsOver) {
  expectCaught(SourceScenario::kResumesFromCommittedOffsets, SourceBreakage::kForgetsOffsets,
               "forgets",
               R"(\{"stream":"s[01]"\}: after a graceful stop \(committed offset \{"seq":9\}, )"
               R"(items 0\.\.9\) the restarted task produced items 0\.\.9 again)");
}

TEST(SourceScenarioSelfTest, PartitionKeysMatchCatchesKeysBuiltInAnotherOrder) {
  expectCaught(SourceScenario::kPartitionKeysMatch, SourceBreakage::kKeyOrderDiffers, "key_order",
               R"(\{"stream":"s[01]","v":1\}: poll\(\) returned records of this source )"
               R"(partition \(offset \{"seq":\d+\}\), but the task did not read its offset under )"
               R"(this key before: it asked the OffsetStorageReader for \{"v":1,"stream":"s0"\})");
}

TEST(SourceScenarioSelfTest, RedeliveryAfterCrashCatchesAPositionKeptOutsideTheOffsets) {
  expectCaught(SourceScenario::kRedeliveryAfterCrash, SourceBreakage::kKeepsPositionOutside,
               "outside",
               R"(\{"stream":"s[01]"\}: after a crash with committed offset \{"seq":9\} )"
               R"(\(items 0\.\.9\), the restarted task did not produce items 10\.\.19 again)");
}

TEST(SourceScenarioSelfTest, WakeupEndsBlockedPollCatchesAPollThatSleepsThroughWakeup) {
  expectCaught(SourceScenario::kWakeupEndsBlockedPoll, SourceBreakage::kIgnoresWakeup, "sleeps",
               R"(\{"stream":"s0"\}, \{"stream":"s1"\} \(items 0\.\.9 acknowledged, nothing )"
               R"(more to read\): a poll\(\) waiting for data returned \d+ ms after wakeup\(\) )"
               R"(\(at most 1000\))");
}

TEST(SourceScenarioSelfTest, CommitRecordPerAcknowledgementCatchesACommitRecordThatThrows) {
  expectCaught(SourceScenario::kCommitRecordPerAcknowledgement,
               SourceBreakage::kThrowsInCommitRecord, "throws",
               R"(\{"stream":"s[01]"\}: commitRecord\(\) threw for items 0\.\.9 \(Kafka offsets )"
               R"([0-9., ]+\): "acknowledging upstream failed")");
}

}  // namespace
}  // namespace ksink::testkit::selftest

// A source keeping the contract passes every scenario.
KSINK_TESTKIT_SOURCE_SCENARIOS(MemorySource, ksink::testkit::selftest::memorySource("memory"));
