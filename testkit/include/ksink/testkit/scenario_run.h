// ScenarioRun: one scenario's run of a task under the test kit, as the author's functions (a
// SinkUnderTest's or a SourceUnderTest's) see it: which scenario, the connector's name, the run's
// topic and an empty directory of its own. A plain value.
#pragma once

#include <filesystem>
#include <string>

namespace ksink::testkit {

struct ScenarioRun {
  std::string scenario;             // the scenario's name, e.g. "DeliveredIsDurable"
  std::string connector;            // the connector's name (a sink's group connect-<connector>)
  std::string topic;                // the run's topic, new for this run
  std::filesystem::path directory;  // empty at the start of the run, removed after it
};

// Throws std::invalid_argument unless `name` (a connector's under test, which names topics,
// groups and tables) is letters, digits and '_'; `kind` names the builder in the message.
void requirePlainName(const std::string& kind, const std::string& name);

}  // namespace ksink::testkit
