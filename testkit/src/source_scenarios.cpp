// The source scenarios' names, dispatch and gtest binding (the TEST_P lives here, in the one object
// file that sourceScenarios() pulls into a test binary from the static library).
#include "ksink/testkit/source_scenarios.h"

#include "scenario_table.h"
#include "source_harness.h"
#include "source_scenario_runs.h"

namespace ksink::testkit {
namespace {

using Row = ScenarioRow<SourceScenario, SourceHarness>;

constexpr Row kScenarios[] = {
    {SourceScenario::kResumesFromCommittedOffsets, "ResumesFromCommittedOffsets",
     runResumesFromCommittedOffsets},
    {SourceScenario::kPartitionKeysMatch, "PartitionKeysMatch", runPartitionKeysMatch},
    {SourceScenario::kRedeliveryAfterCrash, "RedeliveryAfterCrash", runRedeliveryAfterCrash},
    {SourceScenario::kWakeupEndsBlockedPoll, "WakeupEndsBlockedPoll", runWakeupEndsBlockedPoll},
    {SourceScenario::kCommitRecordPerAcknowledgement, "CommitRecordPerAcknowledgement",
     runCommitRecordPerAcknowledgement},
};
static_assert(listsEnum(kScenarios, SourceScenario::kCommitRecordPerAcknowledgement));

const Row& rowFor(SourceScenario scenario) {
  return scenarioRow(kScenarios, scenario, "source");
}

}  // namespace

std::string_view nameOf(SourceScenario scenario) {
  return rowFor(scenario).name;
}

std::vector<SourceScenario> allSourceScenarios() {
  return keysOf(kScenarios);
}

ScenarioReport runSourceScenario(SourceScenario scenario, const SourceUnderTest& source) {
  const Row& row = rowFor(scenario);
  SourceHarness harness(source, row.name);
  return runReported(harness, row.run);
}

::testing::internal::ParamGenerator<SourceScenarioCase> sourceScenarios(SourceUnderTest source) {
  auto shared = std::make_shared<const SourceUnderTest>(std::move(source));
  std::vector<SourceScenarioCase> cases;
  for (const auto scenario : allSourceScenarios()) cases.push_back({shared, scenario});
  return ::testing::ValuesIn(cases);
}

TEST_P(SourceScenarioTest, Holds) {
  const auto& c = GetParam();
  reportToTest(runSourceScenario(c.scenario, *c.task));
}

}  // namespace ksink::testkit
