// The test kit's source scenarios: Kafka Connect's SourceTask contract (and this project's docs on
// it, docs/testkit.md) checked against an author's task inside ksink's source worker, on the
// embedded broker. One line instantiates them all for a SourceUnderTest:
//
//   KSINK_TESTKIT_SOURCE_SCENARIOS(Lines, linesUnderTest());
//
// and each scenario is then a test named Lines/SourceScenarioTest.Holds/<scenario>. What each
// asserts:
//   ResumesFromCommittedOffsets  a task restarted after a graceful stop reads, for each source
//                                partition, the offset that was committed (the same key, the same
//                                map) and goes on after it: every item in Kafka once.
//   PartitionKeysMatch           each source partition poll() returns records of was read from
//                                the OffsetStorageReader under the very same key (key order and
//                                value types included) before its first record.
//   RedeliveryAfterCrash         after a crash (the offsets committed after a point lost), the
//                                restarted task produces again every item after the last commit,
//                                none before it, and nothing is lost.
//   WakeupEndsBlockedPoll        a poll() waiting for data returns soon after wakeup() (the
//                                worker's stop), and the stop ends within
//                                task.shutdown.graceful.timeout.ms.
//   CommitRecordPerAcknowledgement  every record Kafka acknowledged gets exactly one
//                                commitRecord() naming where it landed, and the task takes it
//                                (does not throw).
//
// Thread-safety: scenarios run one at a time per test; each builds its own broker.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "ksink/testkit/scenario_case.h"
#include "ksink/testkit/scenario_report.h"
#include "ksink/testkit/source_under_test.h"

namespace ksink::testkit {

// In the order they run (allSourceScenarios()); a new one needs a row in the kit's table of them.
enum class SourceScenario {
  kResumesFromCommittedOffsets,
  kPartitionKeysMatch,
  kRedeliveryAfterCrash,
  kWakeupEndsBlockedPoll,
  kCommitRecordPerAcknowledgement,
};

std::string_view nameOf(SourceScenario scenario);
std::vector<SourceScenario> allSourceScenarios();

// Runs one scenario against `source` and reports what it found (never throws for a failure of
// the task: that is a report's failure).
ScenarioReport runSourceScenario(SourceScenario scenario, const SourceUnderTest& source);

// gtest's parameter: one scenario of one source.
using SourceScenarioCase = ScenarioCase<SourceUnderTest, SourceScenario>;

class SourceScenarioTest : public ::testing::TestWithParam<SourceScenarioCase> {};

// Every source scenario for `source`, for INSTANTIATE_TEST_SUITE_P.
::testing::internal::ParamGenerator<SourceScenarioCase> sourceScenarios(SourceUnderTest source);
// The test names: the scenario's.
using SourceScenarioName = ScenarioName;

}  // namespace ksink::testkit

// gtest pastes the suite's name into identifiers: it must be unqualified where the line stands.
#define KSINK_TESTKIT_SOURCE_SCENARIOS(prefix, source)                                            \
  using ::ksink::testkit::SourceScenarioTest;                                                     \
  INSTANTIATE_TEST_SUITE_P(prefix, SourceScenarioTest, ::ksink::testkit::sourceScenarios(source), \
                           ::ksink::testkit::SourceScenarioName())
