// The example sink checked with the test kit: the README's "Write your own sink" ends with these
// lines. readBack() names each line the file holds by the coordinates the sink wrote in it. The
// sink is at least once (a line written is never taken back): no exactlyOnce(), and no
// badRecord() (it writes whatever it gets), so the errant-record scenario is skipped.
#include "jsonl_file_sink.h"

#include <fstream>
#include <regex>

#include "ksink/testkit/sink_scenarios.h"

namespace {

using ksink::testkit::ScenarioRun;

std::vector<ksink::testkit::StoredRecord> linesIn(const ScenarioRun& run) {
  static const std::regex coordinates(R"re("topic":"([^"]*)","partition":(\d+),"offset":(\d+))re");
  std::vector<ksink::testkit::StoredRecord> held;
  std::ifstream in(run.directory / "out.jsonl");
  std::smatch m;
  for (std::string line; std::getline(in, line);)
    if (std::regex_search(line, m, coordinates))
      held.push_back({{m[1], std::stoi(m[2])}, std::stoll(m[3])});
  return held;
}

ksink::testkit::SinkUnderTest jsonlFileSink() {
  return ksink::testkit::SinkUnderTest("jsonl",
                                       [] { return std::make_unique<example::JsonlFileSink>(); })
      .configDef(example::JsonlFileSink::configDef())
      .config([](const ScenarioRun& run) {
        return ksink::testkit::Properties{{"file", (run.directory / "out.jsonl").string()}};
      })
      .readBack(linesIn);
}

KSINK_TESTKIT_SINK_SCENARIOS(JsonlFileSink, jsonlFileSink());

}  // namespace
