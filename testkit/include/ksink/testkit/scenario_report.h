// ScenarioReport: what one run of a test-kit scenario found. Each failure is one sentence that
// names the scenario, the partition and the offsets concerned, e.g.
//   [DeliveredIsDurable] jsonl_DeliveredIsDurable-0: preCommit() returned 20 but the destination
//   holds none of offsets 0..19
// The gtest binding reports each as a test failure; the kit's own tests read them to prove each
// scenario fails when it should. A plain value.
#pragma once

#include <string>
#include <vector>

namespace ksink::testkit {

struct ScenarioReport {
  std::string scenario;
  std::vector<std::string> failures;
  // Set when the scenario does not apply to the task (e.g. no bad record declared): why.
  std::string skipped;

  bool passed() const { return failures.empty(); }
};

}  // namespace ksink::testkit
