// What the kit's scenario suites (sink_scenarios.h, source_scenarios.h) share in their gtest
// binding: the parameter, one scenario of one task under test, as gtest prints it; and the test
// names, the scenario's (nameOf() of its kind).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <ostream>
#include <string>

namespace ksink::testkit {

template <typename UnderTest, typename Scenario>
struct ScenarioCase {
  std::shared_ptr<const UnderTest> task;
  Scenario scenario;

  friend void PrintTo(const ScenarioCase& c, std::ostream* os) {
    *os << c.task->name() << "/" << nameOf(c.scenario);
  }
};

struct ScenarioName {
  template <typename Case>
  std::string operator()(const ::testing::TestParamInfo<Case>& info) const {
    return std::string(nameOf(info.param.scenario));
  }
};

}  // namespace ksink::testkit
