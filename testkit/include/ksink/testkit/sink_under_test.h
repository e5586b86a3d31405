// SinkUnderTest: what a connector author tells the test kit about a SinkTask — how to make it, how
// to configure it for one run, and how to read back what the destination holds — so that the
// kit's sink scenarios (ksink/testkit/sink_scenarios.h) can run it on the embedded broker.
//
//   ksink::testkit::SinkUnderTest("jsonl", [] { return std::make_unique<JsonlFileSink>(); })
//       .configDef(JsonlFileSink::configDef())
//       .config([](const ScenarioRun& run) { return Properties{{"file", run.directory / "out"}}; })
//       .readBack([](const ScenarioRun& run) { return readMyFile(run.directory / "out"); });
//
// Each run gets a fresh topic (two partitions), consumer group, and empty directory; the kit
// produces the records (by default key "<partition>-<offset>", value
// {"kit_partition":<partition>,"kit_offset":<offset>}: JSON that a table sink can store as
// columns) and reads them back through readBack(), which names each copy the destination holds by
// its Kafka coordinates. exactlyOnce() claims more: every record held once whatever happens, and
// the offsets the task keeps in the destination (`stored_offsets`) matching what it holds.
//
// A value type: copy it freely. The functions it holds are called from the test's thread, except
// readBack(), which the kit also calls on the task's thread right after preCommit() returned (to
// check that what was reported durable is there); it must be safe to call concurrently with the
// task writing.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ksink/config_def.h"
#include "ksink/sink_task.h"
#include "ksink/testkit/mock_cluster.h"
#include "ksink/testkit/scenario_run.h"
#include "ksink/testkit/task_under_test.h"
#include "ksink/testkit/worker_runner.h"
#include "ksink/topic_partition.h"

namespace ksink::testkit {

// One copy of a record the destination holds, named by where it was read from.
struct StoredRecord {
  TopicPartition tp;
  int64_t offset = 0;
};

class SinkUnderTest : public TaskUnderTest<SinkUnderTest, TaskFactory> {
 public:
  using ReadBackFn = std::function<std::vector<StoredRecord>(const ScenarioRun&)>;
  using RecordFn = std::function<TestRecord(const TopicPartition&, int64_t offset)>;
  using StoredOffsetsFn = std::function<OffsetMap(const ScenarioRun&)>;

  // `name`: letters, digits and '_' (it names topics and tables).
  SinkUnderTest(std::string name, TaskFactory factory);

  // configDef() and config() (task_under_test.h): to the properties from config() the kit adds
  // name, topics, the broker, short commit intervals and, for some scenarios, the dead-letter
  // queue.

  // Required: every copy of a record the destination holds now, by Kafka coordinates.
  SinkUnderTest& readBack(ReadBackFn read_back);
  // The record the kit produces at `offset` of a partition (default: see above).
  SinkUnderTest& records(RecordFn make);
  // A record the task cannot write and reports to context().errantRecordReporter(); without one,
  // the errant-record scenario is skipped.
  SinkUnderTest& badRecord(RecordFn make);
  // Claims exactly-once delivery; `stored_offsets` reads the next offset per partition the task
  // keeps in the destination (a partition it never wrote may be absent).
  SinkUnderTest& exactlyOnce(StoredOffsetsFn stored_offsets);

  std::vector<StoredRecord> read(const ScenarioRun& run) const;
  TestRecord record(const TopicPartition& tp, int64_t offset) const;
  const RecordFn& bad() const { return bad_; }
  bool isExactlyOnce() const { return static_cast<bool>(stored_offsets_); }
  OffsetMap storedOffsets(const ScenarioRun& run) const;

 private:
  ReadBackFn read_back_;
  RecordFn make_;
  RecordFn bad_;
  StoredOffsetsFn stored_offsets_;
};

// The kit's default record at `offset` with one more field, "unknown_column": a bad record for a
// table sink whose table was created from the default records (and does not evolve).
TestRecord recordWithUnknownColumn(const TopicPartition& tp, int64_t offset);

}  // namespace ksink::testkit
