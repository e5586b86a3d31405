// SourceHarness: one scenario's run of a SourceUnderTest: a ScenarioHarness (broker, topic,
// directory, failures) that feeds the author's source its items, starts workers whose tasks wrap
// the author's in the probe (source_probe.h) with their offsets in an offsets topic of the run,
// and reads back what reached Kafka and what the offsets topic holds. The scenarios
// (source_*_scenarios.cpp) are written against it.
//
// Thread-safety: used by the test thread; fail() may also be called from task threads.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "ksink/testkit/source_under_test.h"
#include "ksink/testkit/worker_runner.h"
#include "scenario_harness.h"
#include "source_probe.h"

namespace ksink::testkit {

// Where Kafka holds a record.
struct KafkaPosition {
  std::string topic;
  int32_t partition = 0;
  int64_t offset = 0;
  friend auto operator<=>(const KafkaPosition&, const KafkaPosition&) = default;
};

// An offsets topic's entries for the connector: source partition → offset, both in Connect's
// bytes (nullopt: forgotten).
using StoredOffsets = std::map<std::string, std::optional<std::string>>;

class SourceHarness : public ScenarioHarness {
 public:
  SourceHarness(const SourceUnderTest& source, std::string_view scenario);

  const SourceUnderTest& source() const { return source_; }
  SourceJournal& journal() { return *journal_; }

  // Feeds `count` more items to every stream.
  void feed(int count);
  int64_t fed(int stream) const { return fed_.at(static_cast<size_t>(stream)); }

  // A worker with the probe around the author's tasks, keeping offsets in `offsets_topic` (the
  // run's by default); stopped, and waited for, when destroyed. Its tasks are numbered from
  // journal().tasks() as it was before the call.
  std::unique_ptr<WorkerRunner> startWorker(const std::string& offsets_topic = "");

  // Waits until tasks numbered `first_task` and later got commitRecord() for the items `from` ..
  // fed(stream) - 1 of every stream; false after a failure saying `what` otherwise.
  bool waitAcknowledged(int first_task, int64_t from, std::string_view what);
  bool taskFailed() override;

  // The connector's entries in `offsets_topic` (the run's by default), the last of each key.
  StoredOffsets stored(const std::string& offsets_topic = "");
  // A new offsets topic holding what the run's holds now (a store to restore after a crash).
  std::string copyStore(const std::string& name);
  // Every record of the kit's items in Kafka, found in the topic partitions commitRecord() named.
  std::map<SourceItem, std::vector<KafkaPosition>> inKafka();
  // A stream's source partition in Connect's bytes, as the task's records name it ("stream <n>"
  // while none was polled).
  std::string partitionOf(int stream) const;

 private:
  Properties properties(const std::string& offsets_topic) const;

  const SourceUnderTest& source_;
  std::string offsets_topic_;
  std::shared_ptr<SourceJournal> journal_ = std::make_shared<SourceJournal>();
  std::vector<int64_t> fed_;
};

// "0..4, 7" for the indexes of `items` that belong to `stream`; "none" when none do.
std::string itemRanges(const std::set<SourceItem>& items, int stream);

}  // namespace ksink::testkit
