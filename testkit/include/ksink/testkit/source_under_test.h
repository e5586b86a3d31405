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
#include "ksink/testkit/task_under_test.h"
#include "ksink/testkit/worker_runner.h"

namespace ksink::testkit {

// One item of data the kit fed a source: its stream and its number in it.
struct SourceItem {
  int stream = 0;
  int64_t index = 0;
  friend auto operator<=>(const SourceItem&, const SourceItem&) = default;
};

class SourceUnderTest : public TaskUnderTest<SourceUnderTest, SourceTaskFactory> {
 public:
  using FeedFn = std::function<void(const ScenarioRun&, int stream, int64_t first, int count)>;
  using IdentifyFn = std::function<std::optional<SourceItem>(const SourceRecord&)>;

  // `name`: letters, digits and '_' (it names topics and tables).
  SourceUnderTest(std::string name, SourceTaskFactory factory);

  // configDef() and config() (task_under_test.h): to the properties from config() the kit adds
  // name, the broker, the offsets topic and short commit intervals. Write to run.topic, or to
  // topics of your own that the broker creates when first written.

  // How many streams (source partitions) the kit feeds; 1 by default.
  SourceUnderTest& streams(int count);
  // Required: makes items first .. first + count - 1 of `stream` readable.
  SourceUnderTest& feed(FeedFn feed);
  // Required: the item a record carries (nullopt: none of the kit's, e.g. a heartbeat).
  SourceUnderTest& identify(IdentifyFn identify);

  int streamCount() const { return streams_; }
  void feedItems(const ScenarioRun& run, int stream, int64_t first, int count) const;
  std::optional<SourceItem> itemOf(const SourceRecord& record) const;

 private:
  int streams_ = 1;
  FeedFn feed_;
  IdentifyFn identify_;
};

}  // namespace ksink::testkit
