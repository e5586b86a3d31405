// The kit's self-tests' one assertion: a scenario run against a deliberately broken task reported
// a failure, every failure starts with "[<scenario>] ", and one matches `expected` (which names the
// partition and the offsets). Prints what was reported, for the reader of the test's log.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <regex>
#include <string>
#include <string_view>

#include "ksink/testkit/scenario_report.h"

namespace ksink::testkit::selftest {

inline void expectCaught(const ScenarioReport& report, std::string_view scenario,
                         const std::string& expected) {
  std::string all;
  for (const auto& f : report.failures) all += f + "\n";
  const std::string prefix = "[" + std::string(scenario) + "] ";
  EXPECT_FALSE(report.passed()) << "the broken task passed " << scenario;
  bool matched = false;
  for (const auto& f : report.failures) {
    EXPECT_EQ(f.rfind(prefix, 0), 0u) << f;
    matched = matched || std::regex_search(f, std::regex(expected));
  }
  EXPECT_TRUE(matched) << "no failure matches /" << expected << "/:\n" << all;
  std::printf("%s reported:\n%s", std::string(scenario).c_str(), all.c_str());
}

}  // namespace ksink::testkit::selftest
