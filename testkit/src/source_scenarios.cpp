// The source scenarios' names, dispatch and gtest binding (the TEST_P lives here, in the one object
// file that sourceScenarios() pulls into a test binary from the static library).
#include "ksink/testkit/source_scenarios.h"

#include <fmt/format.h>

#include "source_harness.h"
#include "source_scenario_runs.h"

namespace ksink::testkit {
namespace {

struct Entry {
  SourceScenario scenario;
  std::string_view name;
  void (*run)(SourceHarness&);
};

constexpr Entry kEntries[] = {
    {SourceScenario::kResumesFromCommittedOffsets, "ResumesFromCommittedOffsets",
     runResumesFromCommittedOffsets},
    {SourceScenario::kPartitionKeysMatch, "PartitionKeysMatch", runPartitionKeysMatch},
    {SourceScenario::kRedeliveryAfterCrash, "RedeliveryAfterCrash", runRedeliveryAfterCrash},
    {SourceScenario::kWakeupEndsBlockedPoll, "WakeupEndsBlockedPoll", runWakeupEndsBlockedPoll},
    {SourceScenario::kCommitRecordPerAcknowledgement, "CommitRecordPerAcknowledgement",
     runCommitRecordPerAcknowledgement},
};

const Entry& entryOf(SourceScenario scenario) {
  for (const auto& e : kEntries)
    if (e.scenario == scenario) return e;
  throw std::invalid_argument("unknown source scenario");
}

}  // namespace

std::string_view nameOf(SourceScenario scenario) {
  return entryOf(scenario).name;
}

std::vector<SourceScenario> allSourceScenarios() {
  std::vector<SourceScenario> out;
  for (const auto& e : kEntries) out.push_back(e.scenario);
  return out;
}

ScenarioReport runSourceScenario(SourceScenario scenario, const SourceUnderTest& source) {
  const Entry& entry = entryOf(scenario);
  SourceHarness harness(source, entry.name);
  try {
    entry.run(harness);
  } catch (const std::exception& e) {
    // A worker refusing the configuration, a broker call failing: the run could not happen.
    harness.fail(fmt::format("the scenario could not run: {}", e.what()));
  }
  return harness.report();
}

void PrintTo(const SourceScenarioCase& c, std::ostream* os) {
  *os << c.source->name() << "/" << nameOf(c.scenario);
}

::testing::internal::ParamGenerator<SourceScenarioCase> sourceScenarios(SourceUnderTest source) {
  auto shared = std::make_shared<const SourceUnderTest>(std::move(source));
  std::vector<SourceScenarioCase> cases;
  for (const auto scenario : allSourceScenarios()) cases.push_back({shared, scenario});
  return ::testing::ValuesIn(cases);
}

std::string SourceScenarioName::operator()(
    const ::testing::TestParamInfo<SourceScenarioCase>& info) const {
  return std::string(nameOf(info.param.scenario));
}

TEST_P(SourceScenarioTest, Holds) {
  const auto& c = GetParam();
  const ScenarioReport report = runSourceScenario(c.scenario, *c.source);
  if (!report.skipped.empty()) GTEST_SKIP() << report.skipped;
  for (const auto& failure : report.failures) ADD_FAILURE() << failure;
}

}  // namespace ksink::testkit
