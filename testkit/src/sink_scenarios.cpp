// The sink scenarios' names, dispatch and gtest binding (the TEST_P lives here, in the one object
// file that sinkScenarios() pulls into a test binary from the static library).
#include "ksink/testkit/sink_scenarios.h"

#include <fmt/format.h>

#include <optional>
#include <string>

#include "sink_harness.h"
#include "sink_scenario_runs.h"

namespace ksink::testkit {

std::string_view nameOf(SinkScenario scenario) {
  switch (scenario) {
    case SinkScenario::kDeliveredIsDurable:
      return "DeliveredIsDurable";
    case SinkScenario::kPreCommitWithinPut:
      return "PreCommitWithinPut";
    case SinkScenario::kRetriableRedelivery:
      return "RetriableRedelivery";
    case SinkScenario::kRebalanceAtLeastOnce:
      return "RebalanceAtLeastOnce";
    case SinkScenario::kStopWithinGracefulTimeout:
      return "StopWithinGracefulTimeout";
    case SinkScenario::kErrantRecordToDlq:
      return "ErrantRecordToDlq";
    case SinkScenario::kKillPointsExactlyOnce:
      return "KillPointsExactlyOnce";
  }
  return "?";
}

std::vector<SinkScenario> allSinkScenarios() {
  return {SinkScenario::kDeliveredIsDurable,        SinkScenario::kPreCommitWithinPut,
          SinkScenario::kRetriableRedelivery,       SinkScenario::kRebalanceAtLeastOnce,
          SinkScenario::kStopWithinGracefulTimeout, SinkScenario::kErrantRecordToDlq,
          SinkScenario::kKillPointsExactlyOnce};
}

namespace {

// Why `scenario` cannot apply to `sink` (it lacks what the scenario needs declared), if it cannot.
std::optional<std::string> notApplicable(SinkScenario scenario, const SinkUnderTest& sink) {
  if (scenario == SinkScenario::kErrantRecordToDlq && !sink.bad())
    return "no badRecord() declared for this sink";
  if (scenario == SinkScenario::kKillPointsExactlyOnce && !sink.isExactlyOnce())
    return "no exactlyOnce() declared for this sink";
  return std::nullopt;
}

}  // namespace

ScenarioReport runSinkScenario(SinkScenario scenario, const SinkUnderTest& sink) {
  SinkHarness harness(sink, nameOf(scenario));
  if (auto why = notApplicable(scenario, sink)) {
    harness.skip(std::move(*why));
    return harness.report();
  }
  try {
    switch (scenario) {
      case SinkScenario::kDeliveredIsDurable:
        runDeliveredIsDurable(harness);
        break;
      case SinkScenario::kPreCommitWithinPut:
        runPreCommitWithinPut(harness);
        break;
      case SinkScenario::kRetriableRedelivery:
        runRetriableRedelivery(harness);
        break;
      case SinkScenario::kRebalanceAtLeastOnce:
        runRebalanceAtLeastOnce(harness);
        break;
      case SinkScenario::kStopWithinGracefulTimeout:
        runStopWithinGracefulTimeout(harness);
        break;
      case SinkScenario::kErrantRecordToDlq:
        runErrantRecordToDlq(harness);
        break;
      case SinkScenario::kKillPointsExactlyOnce:
        runKillPointsExactlyOnce(harness);
        break;
    }
  } catch (const std::exception& e) {
    // A worker refusing the configuration, a broker call failing: the run could not happen.
    harness.fail(fmt::format("the scenario could not run: {}", e.what()));
  }
  return harness.report();
}

void PrintTo(const SinkScenarioCase& c, std::ostream* os) {
  *os << c.sink->name() << "/" << nameOf(c.scenario);
}

::testing::internal::ParamGenerator<SinkScenarioCase> sinkScenarios(SinkUnderTest sink) {
  auto shared = std::make_shared<const SinkUnderTest>(std::move(sink));
  std::vector<SinkScenarioCase> cases;
  for (const auto scenario : allSinkScenarios()) {
    if (!notApplicable(scenario, *shared)) cases.push_back({shared, scenario});
  }
  return ::testing::ValuesIn(cases);
}

std::string SinkScenarioName::operator()(
    const ::testing::TestParamInfo<SinkScenarioCase>& info) const {
  return std::string(nameOf(info.param.scenario));
}

TEST_P(SinkScenarioTest, Holds) {
  const auto& c = GetParam();
  const ScenarioReport report = runSinkScenario(c.scenario, *c.sink);
  if (!report.skipped.empty()) GTEST_SKIP() << report.skipped;
  for (const auto& failure : report.failures) ADD_FAILURE() << failure;
}

}  // namespace ksink::testkit
