// The test kit's own subjects: a sink that keeps the contract (MemorySink, writing into a
// MemoryDestination shared by its tasks) and one deliberately broken sink per failure mode the
// kit's sink scenarios must catch. The kit's tests run each scenario against its broken sink and
// assert the failure it reports.
//
// Records whose value is "bad" are the sinks' bad records: MemorySink reports them to the errant
// record reporter and does not write them.
//
// Thread-safety: a MemoryDestination is shared by the tasks of several workers and read by the
// test thread: every access under its mutex.
#pragma once

#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "ksink/sink_task.h"
#include "ksink/testkit/sink_under_test.h"

namespace ksink::testkit::selftest {

class MemoryDestination {
 public:
  void write(std::span<const SinkRecord> records);
  // Writes `records` and, in the same step, stores the next offset of each of their partitions
  // (an exactly-once sink's transaction).
  void writeWithOffsets(std::span<const SinkRecord> records);
  OffsetMap storedOffsets() const;
  // Forgets every record of `partitions` (what a sink that truncates its partitions' files does).
  void erase(const std::vector<TopicPartition>& partitions);
  std::vector<StoredRecord> held() const;

 private:
  mutable std::mutex mutex_;
  std::vector<StoredRecord> held_;
  OffsetMap stored_;
};

// Writes every good record in put() and reports the bad ones; the default preCommit().
class MemorySink : public SinkTask {
 public:
  explicit MemorySink(std::shared_ptr<MemoryDestination> destination)
      : destination_(std::move(destination)) {}
  void start(const Config&) override {}
  void put(std::span<const SinkRecord> records) override;
  void stop() override {}

 protected:
  MemoryDestination& destination() { return *destination_; }

 private:
  std::shared_ptr<MemoryDestination> destination_;
};

enum class Breakage {
  kNone,
  kBuffersUntilStop,       // preCommit() reports records that are only written at stop()
  kReturnsOnePastPut,      // preCommit() returns the worker's offsets + 1
  kHalfWritesThenRetries,  // its first batch: writes half, then throws RetriableError
  kForgetsOnOpen,          // open() erases what the destination holds for the partitions
  kSlowStop,               // stop() takes longer than the graceful timeout
  kWritesErrantRecords,    // reports bad records and writes them anyway
  kUnfencedOffsets,        // exactly once by offsets stored with the data, but never checks them
                           // when it writes: a zombie's batch lands again
};

// A SinkUnderTest named `name` whose tasks are MemorySinks broken as `breakage` says, with a fresh
// MemoryDestination per run and "bad" as its bad record (kUnfencedOffsets declares exactlyOnce()).
SinkUnderTest memorySink(const std::string& name, Breakage breakage = Breakage::kNone);

}  // namespace ksink::testkit::selftest
