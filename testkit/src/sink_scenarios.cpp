// The sink scenarios' names, dispatch and gtest binding (the TEST_P lives here, in the one object
// file that sinkScenarios() pulls into a test binary from the static library).
#include "ksink/testkit/sink_scenarios.h"

#include <optional>
#include <string>

#include "scenario_table.h"
#include "sink_harness.h"
#include "sink_scenario_runs.h"

namespace ksink::testkit {
namespace {

using Row = ScenarioRow<SinkScenario, SinkHarness>;

constexpr Row kScenarios[] = {
    {SinkScenario::kDeliveredIsDurable, "DeliveredIsDurable", runDeliveredIsDurable},
    {SinkScenario::kPreCommitWithinPut, "PreCommitWithinPut", runPreCommitWithinPut},
    {SinkScenario::kRetriableRedelivery, "RetriableRedelivery", runRetriableRedelivery},
    {SinkScenario::kRebalanceAtLeastOnce, "RebalanceAtLeastOnce", runRebalanceAtLeastOnce},
    {SinkScenario::kStopWithinGracefulTimeout, "StopWithinGracefulTimeout",
     runStopWithinGracefulTimeout},
    {SinkScenario::kErrantRecordToDlq, "ErrantRecordToDlq", runErrantRecordToDlq},
    {SinkScenario::kKillPointsExactlyOnce, "KillPointsExactlyOnce", runKillPointsExactlyOnce},
};
static_assert(listsEnum(kScenarios, SinkScenario::kKillPointsExactlyOnce));

const Row& rowFor(SinkScenario scenario) {
  return scenarioRow(kScenarios, scenario, "sink");
}

// Why `scenario` cannot apply to `sink` (it lacks what the scenario needs declared), if it cannot.
std::optional<std::string> notApplicable(SinkScenario scenario, const SinkUnderTest& sink) {
  if (scenario == SinkScenario::kErrantRecordToDlq && !sink.bad())
    return "no badRecord() declared for this sink";
  if (scenario == SinkScenario::kKillPointsExactlyOnce && !sink.isExactlyOnce())
    return "no exactlyOnce() declared for this sink";
  return std::nullopt;
}

}  // namespace

std::string_view nameOf(SinkScenario scenario) {
  return rowFor(scenario).name;
}

std::vector<SinkScenario> allSinkScenarios() {
  return keysOf(kScenarios);
}

ScenarioReport runSinkScenario(SinkScenario scenario, const SinkUnderTest& sink) {
  const Row& row = rowFor(scenario);
  SinkHarness harness(sink, row.name);
  if (auto why = notApplicable(scenario, sink)) {
    harness.skip(std::move(*why));
    return harness.report();
  }
  return runReported(harness, row.run);
}

::testing::internal::ParamGenerator<SinkScenarioCase> sinkScenarios(SinkUnderTest sink) {
  auto shared = std::make_shared<const SinkUnderTest>(std::move(sink));
  std::vector<SinkScenarioCase> cases;
  for (const auto scenario : allSinkScenarios()) {
    if (!notApplicable(scenario, *shared)) cases.push_back({shared, scenario});
  }
  return ::testing::ValuesIn(cases);
}

TEST_P(SinkScenarioTest, Holds) {
  const auto& c = GetParam();
  reportToTest(runSinkScenario(c.scenario, *c.task));
}

}  // namespace ksink::testkit
