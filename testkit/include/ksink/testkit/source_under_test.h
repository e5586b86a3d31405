// SourceUnderTest: what a connector author tells the test kit about a SourceTask — how to make it,
// how to configure it for one run, how to give its source more data, and which of that data a
// record it returns carries — so that the kit's source scenarios (ksink/testkit/source_scenarios.h)
// can run it on the embedded broker.
//
//   ksink::testkit::SourceUnderTest("lines", [] { return std::make_unique<LineSource>(); })
//       .configDef(LineSource::configDef())
//       .config([](const ScenarioRun& run) {
//         return Properties{{"file", (run.directory / "in.txt").string()}, {"topic", run.topic}};
//       })
//       .feed([](const ScenarioRun& run, int stream, int64_t first, int count) {
//         appendLines(run.directory / "in.txt", first, count);  // "line <first>" …
//       })
//       .identify([](const ksink::SourceRecord& r) -> std::optional<ksink::testkit::SourceItem> {
//         return ksink::testkit::SourceItem{0, std::stoll(r.value().asString().substr(5))};
//       });
//
// The kit speaks of *items*: the data it feeds the source, numbered from 0 in each of streams()
// streams (a stream is what the task reads as one source partition: a file, a table). feed() makes
// items first .. first + count - 1 of a stream readable by the task, after those fed before;
// identify() says which item a record carries. The kit tags each record the task returns with its
// item (header "ksink.testkit.item"), so it finds them again in Kafka.
//
// A value type: copy it freely. feed() and config() are called from the test's thread;
// identify() from the task's (in poll()).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "ksink/config_def.h"
#include "ksink/source_record.h"
#include "ksink/source_task.h"
#include "ksink/testkit/scenario_run.h"
#include "ksink/testkit/worker_runner.h"

namespace ksink::testkit {

// One item of data the kit fed a source: its stream and its number in it.
struct SourceItem {
  int stream = 0;
  int64_t index = 0;
  friend auto operator<=>(const SourceItem&, const SourceItem&) = default;
};

class SourceUnderTest {
 public:
  using ConfigFn = std::function<Properties(const ScenarioRun&)>;
  using FeedFn = std::function<void(const ScenarioRun&, int stream, int64_t first, int count)>;
  using IdentifyFn = std::function<std::optional<SourceItem>(const SourceRecord&)>;

  // `name`: letters, digits and '_' (it names topics and tables).
  SourceUnderTest(std::string name, SourceTaskFactory factory);

  // The task's configuration keys, which the Worker validates the run's properties against.
  SourceUnderTest& configDef(const ConfigDef& def);
  // The connector properties the task needs for a run (the kit adds name, the broker, the
  // offsets topic and short commit intervals; yours win). Write to run.topic, or to topics of
  // your own that the broker creates when first written.
  SourceUnderTest& config(ConfigFn config);
  // How many streams (source partitions) the kit feeds; 1 by default.
  SourceUnderTest& streams(int count);
  // Required: makes items first .. first + count - 1 of `stream` readable.
  SourceUnderTest& feed(FeedFn feed);
  // Required: the item a record carries (nullopt: none of the kit's, e.g. a heartbeat).
  SourceUnderTest& identify(IdentifyFn identify);

  const std::string& name() const { return name_; }
  const SourceTaskFactory& factory() const { return factory_; }
  const ConfigDef& definitions() const { return definitions_; }
  int streamCount() const { return streams_; }
  Properties properties(const ScenarioRun& run) const;
  void feedItems(const ScenarioRun& run, int stream, int64_t first, int count) const;
  std::optional<SourceItem> itemOf(const SourceRecord& record) const;

 private:
  std::string name_;
  SourceTaskFactory factory_;
  ConfigDef definitions_;
  ConfigFn config_;
  int streams_ = 1;
  FeedFn feed_;
  IdentifyFn identify_;
};

}  // namespace ksink::testkit
