// Kafka Connect's file source through the test kit's source scenarios, as a connector author would
// check a source: the kit appends lines "line <n>" to the file and recognises each record by its
// line.
#include <fmt/format.h>

#include <fstream>

#include "file_stream_source_task.h"
#include "ksink/testkit/source_scenarios.h"

namespace {

using ksink::testkit::ScenarioRun;
using ksink::testkit::SourceItem;

std::string inputFile(const ScenarioRun& run) {
  return (run.directory / "input.txt").string();
}

ksink::testkit::SourceUnderTest fileSource() {
  return ksink::testkit::SourceUnderTest(
             "file_source", [] { return std::make_unique<ksink::FileStreamSourceTask>(); })
      .configDef(ksink::FileStreamSourceTask::configDef())
      .config([](const ScenarioRun& run) {
        return ksink::testkit::Properties{{"file", inputFile(run)}, {"topic", run.topic}};
      })
      .feed([](const ScenarioRun& run, int, int64_t first, int count) {
        std::ofstream out(inputFile(run), std::ios::app);
        for (int64_t n = first; n < first + count; ++n) out << fmt::format("line {}\n", n);
      })
      .identify([](const ksink::SourceRecord& r) -> std::optional<SourceItem> {
        const std::string& line = r.value().asString();
        if (line.rfind("line ", 0) != 0) return std::nullopt;
        return SourceItem{0, std::stoll(line.substr(5))};
      });
}

}  // namespace

KSINK_TESTKIT_SOURCE_SCENARIOS(FileStreamSource, fileSource());
