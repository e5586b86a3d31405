// The test kit's sink scenarios: Kafka Connect's SinkTask contract (and this project's docs on it,
// docs/testkit.md) checked against an author's task on the embedded broker. One line instantiates
// them all for a SinkUnderTest:
//
//   KSINK_TESTKIT_SINK_SCENARIOS(Jsonl, jsonlUnderTest());
//
// and each scenario is then a test named Jsonl/SinkScenarioTest.Holds/<scenario> (the macro is
// gtest's INSTANTIATE_TEST_SUITE_P with sinkScenarios() and SinkScenarioName()). What each
// asserts:
//   DeliveredIsDurable         whenever preCommit() returns an offset for a partition, the
//                              destination holds every record below it (read back at once);
//                              in the end the group commits everything produced and the
//                              destination holds it all.
//   PreCommitWithinPut         preCommit() never returns an offset past what was put() (nor one
//                              for a partition the task does not hold).
//   RetriableRedelivery        after a RetriableError from put() (one the kit throws before the
//                              task's put(), one the task throws itself, and for exactlyOnce()
//                              one thrown after half the batch was written) the task gets the same
//                              batch again, and the destination ends with every record once.
//   RebalanceAtLeastOnce       a second worker joins mid-stream (partitions revoked, close()d,
//                              reassigned and open()ed again): every record below the committed
//                              offsets is in the destination, none lost.
//   StopWithinGracefulTimeout  Worker::stop() returns within task.shutdown.graceful.timeout.ms,
//                              with the task's final preCommit()/close()/stop() done.
//   ErrantRecordToDlq          a bad record (SinkUnderTest::badRecord) the task reports to the
//                              errant record reporter reaches the dead-letter queue and is not in
//                              the destination; the records around it are.
//   KillPointsExactlyOnce      (exactlyOnce() only) a task killed before or after put(), before or
//                              after preCommit() is replaced by another worker's and then let go
//                              as a zombie: every record is held exactly once all the same.
// With exactlyOnce() declared, every scenario also checks that the destination holds each record
// exactly once and that the offsets the task stores match what it holds.
//
// Thread-safety: scenarios run one at a time per test; each builds its own broker.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ksink/testkit/scenario_case.h"
#include "ksink/testkit/scenario_report.h"
#include "ksink/testkit/sink_under_test.h"

namespace ksink::testkit {

// In the order they run (allSinkScenarios()); a new one needs a row in the kit's table of them.
enum class SinkScenario {
  kDeliveredIsDurable,
  kPreCommitWithinPut,
  kRetriableRedelivery,
  kRebalanceAtLeastOnce,
  kStopWithinGracefulTimeout,
  kErrantRecordToDlq,
  kKillPointsExactlyOnce,
};

std::string_view nameOf(SinkScenario scenario);
std::vector<SinkScenario> allSinkScenarios();

// Runs one scenario against `sink` and reports what it found (never throws for a failure of the
// task: that is a report's failure).
ScenarioReport runSinkScenario(SinkScenario scenario, const SinkUnderTest& sink);

// gtest's parameter: one scenario of one sink.
using SinkScenarioCase = ScenarioCase<SinkUnderTest, SinkScenario>;

class SinkScenarioTest : public ::testing::TestWithParam<SinkScenarioCase> {};

// Every sink scenario that applies to `sink`, named by scenario, for INSTANTIATE_TEST_SUITE_P:
// ErrantRecordToDlq with a badRecord() only, KillPointsExactlyOnce with exactlyOnce() only (so
// no test of it is skipped; runSinkScenario() reports those two as skipped for such a sink).
::testing::internal::ParamGenerator<SinkScenarioCase> sinkScenarios(SinkUnderTest sink);
// The test names: the scenario's.
using SinkScenarioName = ScenarioName;

}  // namespace ksink::testkit

// gtest pastes the suite's name into identifiers: it must be unqualified where the line stands.
#define KSINK_TESTKIT_SINK_SCENARIOS(prefix, sink)                                          \
  using ::ksink::testkit::SinkScenarioTest;                                                 \
  INSTANTIATE_TEST_SUITE_P(prefix, SinkScenarioTest, ::ksink::testkit::sinkScenarios(sink), \
                           ::ksink::testkit::SinkScenarioName())
