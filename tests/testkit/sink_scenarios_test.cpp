// The test kit's sink scenarios fail when they should: each runs against a sink broken in the one
// way it exists to catch, and must report that failure with a message naming the scenario, the
// partition and the offsets. That sinks keeping the contract pass them all is shown by the
// reference sinks' own runs of the kit (the SQLite sink, the JSONL example), not repeated here.
#include "ksink/testkit/sink_scenarios.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "expect_caught.h"
#include "memory_sinks.h"

namespace ksink::testkit::selftest {
namespace {

// The kit's parameterized scenarios are linked in, and instantiated by the reference sinks' tests.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(SinkScenarioTest);

// Runs `scenario` against a sink broken as `breakage`; at least one failure must match `expected`.
void expectCaught(SinkScenario scenario, Breakage breakage, const std::string& name,
                  const std::string& expected) {
  selftest::expectCaught(runSinkScenario(scenario, memorySink(name, breakage)), nameOf(scenario),
                         expected);
}

TEST(SinkScenarioSelfTest, DeliveredIsDurableCatchesATaskThatWritesOnlyAtStop) {
  expectCaught(SinkScenario::kDeliveredIsDurable, Breakage::kBuffersUntilStop, "buffers",
               R"(buffers_DeliveredIsDurable-[01]: preCommit\(\) returned (\d+) .*missing )"
               R"(offsets 0(\.\.\d+)? right after it returned)");
}

TEST(SinkScenarioSelfTest, PreCommitWithinPutCatchesAnOffsetPastThePut) {
  expectCaught(SinkScenario::kPreCommitWithinPut, Breakage::kReturnsOnePastPut, "one_past",
               R"(one_past_PreCommitWithinPut-[01]: preCommit\(\) returned offset (\d+), past )"
               R"(the records put\(\) \(offsets below \d+: offsets \d+ were never put\))");
}

TEST(SinkScenarioSelfTest, RetriableRedeliveryCatchesAHalfWrittenBatchWrittenAgain) {
  expectCaught(SinkScenario::kRetriableRedelivery, Breakage::kHalfWritesThenRetries, "half",
               R"(half_RetriableRedelivery-[01]: after put\(\) threw RetriableError and the batch )"
               R"(came again, the destination holds offsets \d+(\.\.\d+)? more than once)");
}

TEST(SinkScenarioSelfTest, RebalanceAtLeastOnceCatchesATaskThatForgetsOnOpen) {
  expectCaught(SinkScenario::kRebalanceAtLeastOnce, Breakage::kForgetsOnOpen, "forgets",
               R"(forgets_RebalanceAtLeastOnce-[01]: after a rebalance, with the group's offsets )"
               R"(committed at \{.*\}, the destination is missing offsets 0\.\.\d+)");
}

TEST(SinkScenarioSelfTest, StopWithinGracefulTimeoutCatchesASlowStop) {
  expectCaught(SinkScenario::kStopWithinGracefulTimeout, Breakage::kSlowStop, "slow",
               R"(slow_StopWithinGracefulTimeout-0, slow_StopWithinGracefulTimeout-1: )"
               R"(Worker::stop\(\) with records delivered up to \{.*: 10.*\} .*stop\(\) )"
               R"((took \d+ ms|has not returned))");
}

TEST(SinkScenarioSelfTest, ErrantRecordToDlqCatchesAReportedRecordWrittenAnyway) {
  expectCaught(SinkScenario::kErrantRecordToDlq, Breakage::kWritesErrantRecords, "errant",
               R"(errant_ErrantRecordToDlq-0: with the record at errant_ErrantRecordToDlq-0@5 )"
               R"(reported as errant, the destination holds offsets 5, which it must not)");
}

TEST(SinkScenarioSelfTest, ErrantRecordToDlqCatchesABadRecordNeverReported) {
  // The kBuffersUntilStop sink writes everything, the bad record too, and reports nothing.
  expectCaught(SinkScenario::kErrantRecordToDlq, Breakage::kBuffersUntilStop, "unreported",
               R"(unreported_ErrantRecordToDlq-0: the bad record at offset 5 was never reported)");
}

TEST(SinkScenarioSelfTest, KillPointsExactlyOnceCatchesAZombieThatIsNotFenced) {
  expectCaught(
      SinkScenario::kKillPointsExactlyOnce, Breakage::kUnfencedOffsets, "unfenced",
      R"(unfenced_KillPointsExactlyOnce-[01]: with exactly-once declared, after the task )"
      R"(killed before put\(\) was replaced and let go as a zombie, the destination holds )"
      R"(offsets 0(\.\.\d+)? more than once)");
}

// A scenario the sink declares nothing for is left out of its tests, and run directly says why.
TEST(SinkScenarioSelfTest, KillPointsNeedExactlyOnceDeclared) {
  std::vector<std::string> instantiated;
  for (const auto& c : sinkScenarios(memorySink("plain")))
    instantiated.emplace_back(nameOf(c.scenario));
  EXPECT_EQ(instantiated.size(), allSinkScenarios().size() - 1);
  EXPECT_EQ(std::count(instantiated.begin(), instantiated.end(), "KillPointsExactlyOnce"), 0);
  const auto report = runSinkScenario(SinkScenario::kKillPointsExactlyOnce, memorySink("plain"));
  EXPECT_EQ(report.skipped, "no exactlyOnce() declared for this sink");
  EXPECT_TRUE(report.passed());
}

}  // namespace
}  // namespace ksink::testkit::selftest
