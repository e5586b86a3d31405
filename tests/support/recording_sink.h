// RecordingSink: a SinkTask for worker tests. It appends every call it receives (start, open, put,
// flush, preCommit, close, stop), with copies of its arguments, to a CallLog shared by all the
// tasks of a test, and does whatever a SinkScript tells it to (throw, rewind, pause, request a
// commit, sleep, return chosen offsets from preCommit).
//
// Thread-safety: CallLog may be read and waited on from any thread while tasks append to it. A
// SinkScript is built before the worker starts and not changed afterwards; its hooks run on the
// task threads, concurrently when several tasks share it (the canned behaviours are thread-safe;
// a custom hook must be too). A hook that needs a switch from the test reads an atomic.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "clock.h"
#include "ksink/sink_task.h"
#include "ksink/worker.h"

namespace ksink {
// Readable gtest output for partitions ("topic-p").
void PrintTo(const TopicPartition& tp, std::ostream* os);
}  // namespace ksink

namespace ksink::test {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// A record as put() saw it, copied (SinkRecord only views the consumer's buffers).
struct RecordedRecord {
  TopicPartition tp;
  int64_t offset = 0;
  std::optional<int64_t> timestamp;
  std::optional<std::string> key;
  std::optional<std::string> value;
  std::vector<std::pair<std::string, std::optional<std::string>>> headers;
  friend bool operator==(const RecordedRecord&, const RecordedRecord&) = default;
};

enum class CallKind { kStart, kOpen, kPut, kFlush, kPreCommit, kClose, kStop };

struct Call {
  CallKind kind = CallKind::kStart;
  int task = 0;                            // which RecordingSink (the factory numbers them)
  Clock::time_point at;                    // when the call began, on the log's clock
  std::vector<TopicPartition> partitions;  // open, close
  std::vector<RecordedRecord> records;     // put
  OffsetMap offsets;                       // flush, preCommit: the argument
  OffsetMap returned;                      // preCommit: the result
  bool finished = false;                   // returned or threw
  bool threw = false;
};

// One line per call, for assertion messages.
std::string describe(const Call& call);
std::string describe(const std::vector<Call>& calls);
// Readable gtest output for records ("topic-p@offset key=… value=…").
void PrintTo(const RecordedRecord& record, std::ostream* os);
// `partitions` in TopicPartition order (open() and close() keep librdkafka's order).
std::vector<TopicPartition> sorted(std::vector<TopicPartition> partitions);

class CallLog {
 public:
  // The clock calls are timed with (the steady clock unless set); set it before the tasks start.
  void useClock(const ksink::Clock& clock) { clock_ = &clock; }
  Clock::time_point now() const { return clock_->now(); }

  // Appends a call that has begun; returns its index for end().
  size_t begin(Call call);
  void end(size_t index, bool threw, OffsetMap returned = {});

  std::vector<Call> calls() const;
  // Waits until `condition(calls())` holds; false when `timeout` passed first.
  bool waitUntil(const std::function<bool(const std::vector<Call>&)>& condition,
                 milliseconds timeout) const;

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::vector<Call> calls_;
  const ksink::Clock* clock_ = &ksink::Clock::steady();
};

// Queries over a log snapshot. `task` = nullopt means every task.
std::vector<Call> select(const std::vector<Call>& calls, CallKind kind,
                         std::optional<int> task = std::nullopt);
// Records of the put() calls that returned normally, in delivery order.
std::vector<RecordedRecord> deliveredRecords(const std::vector<Call>& calls,
                                             std::optional<int> task = std::nullopt);
// Offsets of `tp` in put() calls that returned normally, in delivery order.
std::vector<int64_t> deliveredOffsets(const std::vector<Call>& calls, const TopicPartition& tp,
                                      std::optional<int> task = std::nullopt);
// True when every offset in [0, end) of `tp` was in a put() that returned normally.
bool deliveredAll(const std::vector<Call>& calls, const TopicPartition& tp, int64_t end);
// Index of the first call at or after `from` for which `pred` holds.
std::optional<size_t> findCall(const std::vector<Call>& calls,
                               const std::function<bool(const Call&)>& pred, size_t from = 0);
bool contains(const Call& put, const TopicPartition& tp, int64_t offset);

class SinkScript {
 public:
  using PutHook = std::function<void(SinkTaskContext&, std::span<const SinkRecord>)>;
  using PartitionsHook = std::function<void(SinkTaskContext&, const std::vector<TopicPartition>&)>;
  using OffsetsHook = std::function<void(SinkTaskContext&, const OffsetMap&)>;
  // Returns what preCommit() returns, or nullopt for the default (flush, then return `current`).
  using PreCommitHook =
      std::function<std::optional<OffsetMap>(SinkTaskContext&, const OffsetMap& current)>;
  using StopHook = std::function<void()>;
  using StartHook = std::function<void(SinkTaskContext&)>;

  // Generic hooks, run in the order added; an exception leaves the sink method with it.
  SinkScript& onStart(StartHook hook);
  SinkScript& onPut(PutHook hook);
  SinkScript& onOpen(PartitionsHook hook);
  SinkScript& onClose(PartitionsHook hook);
  SinkScript& onFlush(OffsetsHook hook);
  SinkScript& onPreCommit(PreCommitHook hook);  // the last hook returning a value wins
  SinkScript& onStop(StopHook hook);

  // Canned behaviours. "Put containing tp@offset" keeps a script independent of how the worker
  // happens to batch records.
  // The `nth` non-empty put (1-based, counted over every task) and the `times` - 1 after it throw
  // RetriableError, after calling context().timeout(`context_timeout`) when given.
  SinkScript& retriableOnPut(int nth, int times = 1,
                             std::optional<milliseconds> context_timeout = std::nullopt);
  // The first `times` puts containing tp@offset throw RetriableError (after context().timeout()).
  SinkScript& retriableWhenPutContains(TopicPartition tp, int64_t offset, int times,
                                       std::optional<milliseconds> context_timeout = std::nullopt);
  // Any put containing tp@offset throws std::runtime_error (a fatal task error).
  SinkScript& fatalWhenPutContains(TopicPartition tp, int64_t offset);
  // The first put containing tp@offset calls context().requestCommit().
  SinkScript& requestCommitWhenPutContains(TopicPartition tp, int64_t offset);
  // The first put containing tp@offset calls context().offset(`rewind`).
  SinkScript& rewindWhenPutContains(TopicPartition tp, int64_t offset, OffsetMap rewind);
  // Every non-empty put sleeps this long.
  SinkScript& sleepInPut(milliseconds duration);
  // open() calls context().offset() for those of `rewind` it was given.
  SinkScript& rewindInOpen(OffsetMap rewind);
  // open() calls context().pause() for those of `partitions` it was given.
  SinkScript& pauseInOpen(std::vector<TopicPartition> partitions);
  // preCommit() returns `f(current)`.
  SinkScript& preCommitReturns(std::function<OffsetMap(const OffsetMap&)> f);
  // The first flush() for which `when(current)` holds throws std::runtime_error.
  SinkScript& flushThrowsOnce(std::function<bool(const OffsetMap&)> when);

 private:
  friend class RecordingSink;
  std::vector<StartHook> start_;
  std::vector<PutHook> put_;
  std::vector<PartitionsHook> open_;
  std::vector<PartitionsHook> close_;
  std::vector<OffsetsHook> flush_;
  std::vector<PreCommitHook> pre_commit_;
  std::vector<StopHook> stop_;
};

class RecordingSink final : public SinkTask {
 public:
  RecordingSink(int id, std::shared_ptr<CallLog> log, std::shared_ptr<const SinkScript> script);

  void start(const Config& config) override;
  void open(const std::vector<TopicPartition>& partitions) override;
  void put(std::span<const SinkRecord> records) override;
  void flush(const OffsetMap& current_offsets) override;
  OffsetMap preCommit(const OffsetMap& current_offsets) override;
  void close(const std::vector<TopicPartition>& partitions) override;
  void stop() override;

  // A factory for Worker: the n-th task it makes gets id `first_id` + n.
  static TaskFactory factory(std::shared_ptr<CallLog> log, std::shared_ptr<const SinkScript> script,
                             int first_id = 0);

 private:
  Call newCall(CallKind kind) const;

  const int id_;
  const std::shared_ptr<CallLog> log_;
  const std::shared_ptr<const SinkScript> script_;
};

}  // namespace ksink::test
