// Scenario tables: what the sink and the source scenarios' front ends (sink_scenarios.cpp,
// source_scenarios.cpp) share. Each kind keeps its scenarios in one enum table (enum_table.h) of
// ScenarioRows — enumerator, name, run function — from which its nameOf(), all…Scenarios() and
// run…Scenario() are made, so a scenario is added in one place and both kinds name, list, run and
// report theirs alike.
//
// Thread-safety: the tables are constants; a run uses its harness on the test's thread.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>

#include "enum_table.h"
#include "ksink/testkit/scenario_report.h"

namespace ksink::testkit {

// One scenario of a kind: its enumerator, its name (the test's, and its runs' topics') and the
// function that runs it on the kind's harness.
template <typename Scenario, typename Harness>
struct ScenarioRow {
  Scenario key;
  std::string_view name;
  void (*run)(Harness&);
};

// The row of `scenario`; throws std::invalid_argument ("unknown <kind> scenario") for a value
// that is none of the enum's enumerators.
template <typename Row, size_t N>
const Row& scenarioRow(const Row (&rows)[N], decltype(Row::key) scenario, std::string_view kind) {
  if (const Row* row = rowOf(rows, scenario)) return *row;
  throw std::invalid_argument(fmt::format("unknown {} scenario", kind));
}

// Runs `run` on `harness` and returns what it found. An exception out of the scenario (a worker
// refusing the configuration, a broker call failing) means the run could not happen: a failure
// of the report, not an error of the caller's.
template <typename Harness>
ScenarioReport runReported(Harness& harness, void (*run)(Harness&)) {
  try {
    run(harness);
  } catch (const std::exception& e) {
    harness.fail(fmt::format("the scenario could not run: {}", e.what()));
  }
  return harness.report();
}

// The gtest binding's verdict on `report`: the test skipped with the reason, or one test failure
// per failure found.
inline void reportToTest(const ScenarioReport& report) {
  if (!report.skipped.empty()) GTEST_SKIP() << report.skipped;
  for (const auto& failure : report.failures) ADD_FAILURE() << failure;
}

}  // namespace ksink::testkit
