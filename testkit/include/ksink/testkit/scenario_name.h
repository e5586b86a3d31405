// The test names of the kit's scenario suites (INSTANTIATE_TEST_SUITE_P's name generator): a
// case's scenario's name, nameOf() of its kind (SinkScenario, SourceScenario).
#pragma once

#include <gtest/gtest.h>

#include <string>

namespace ksink::testkit {

struct ScenarioName {
  template <typename Case>
  std::string operator()(const ::testing::TestParamInfo<Case>& info) const {
    return std::string(nameOf(info.param.scenario));
  }
};

}  // namespace ksink::testkit
