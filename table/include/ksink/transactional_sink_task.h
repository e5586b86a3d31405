// TransactionalSinkTask: the exactly-once pattern for sinks whose destination has transactions.
// The sink keeps, per (connector, topic, partition), the next offset to read in the destination
// itself (table `ksink_offsets(connector, topic, partition, next_offset)`, primary key
// (connector, topic, partition)) and writes it in the same transaction as the rows:
//
//   open()      loads the stored offsets (loadOffsets) and rewinds the consumer to them with
//               context().offset(); a partition with no stored row starts where the consumer
//               group says.
//   put()       drops records the destination already holds (offset below the stored one), splits
//               the rest into transactions of at most maxBatchSize() records, and hands each to
//               writeBatch() with the offset updates to apply in that transaction. Each update is
//               a compare-and-set against the value this task last read or wrote (`expected`;
//               nullopt = no row yet: insert only if still absent).
//               When a compare-and-set fails, another task wrote the partition since (this task is
//               a zombie that lost it, or the partition moved): the sink rolled back, nothing was
//               written; the helper reloads the stored offsets and rewinds every partition of the
//               unwritten records to them, so nothing is written twice or skipped.
//   preCommit() returns only what committed transactions cover (never more than `current`), so
//               the consumer group's offsets trail the destination and show true lag.
//   close()     forgets the partitions.
//
// Pipelining (optional): a sink can let the destination commit while the worker gathers the next
// batch. Its writeBatch() then checks the compare-and-set, sends the rest of the transaction with
// its COMMIT, calls outcomePending() and returns true without waiting; awaitOutcome() reads the
// outcome later. The helper calls it before anything that depends on it — the next put() (empty
// ones too) or writeBatch(), preCommit(), open() and close() — and until then neither reports the
// batch's offsets from preCommit() nor drops records as already written on its account. A batch
// that did not commit is rewound, with the records in hand, to the stored offsets and comes
// again; the next batch's compare-and-set expects the pending one's offsets, so it can never be
// written past an uncommitted one.
//
// A subclass implements start()/stop(), offsetStore() (its SQL for load and compare-and-set, see
// offset_store.h) and writeBatch(), which calls storeOffsets() inside its transaction; it must not
// override put() or preCommit(). (A sink may instead override loadOffsets() and apply the updates
// itself, as sinks written before OffsetStore do.)
// Failure taxonomy (write_failure.h): a sink classifies its driver's failures once into
// WriteFailure; failWrite() turns a batch's failure into RetriableError (the worker redelivers the
// batch; records already committed are dropped by the stored-offset check) or a fatal error, and
// bad records go through reportBadRecord(). Missing tables and columns: TablePolicy.
//
// Thread-safety: like every SinkTask, called only from its worker task thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ksink/offset_store.h"
#include "ksink/record_mapper.h"
#include "ksink/sink_record.h"
#include "ksink/sink_task.h"
#include "ksink/topic_partition.h"
#include "ksink/write_failure.h"

namespace ksink {

class TransactionalSinkTask : public SinkTask {
 public:
  // The destination table both reference sinks keep their offsets in.
  static constexpr std::string_view kOffsetsTable = "ksink_offsets";

  // expected: the stored value this task last saw (nullopt = no row); next_offset: the value to
  // store, last written offset + 1.
  using OffsetUpdate = OffsetStore::Update;

  void open(const std::vector<TopicPartition>& partitions) override;
  void put(std::span<const SinkRecord> records) final;
  OffsetMap preCommit(const OffsetMap& current_offsets) final;
  void close(const std::vector<TopicPartition>& partitions) override;

  // What committed transactions of this task cover, per open partition.
  OffsetMap committedOffsets() const;

 protected:
  // The sink's offsets table (its SQL); nullptr only for a sink that overrides loadOffsets() and
  // applies the compare-and-set itself.
  virtual OffsetStore* offsetStore() { return nullptr; }
  // The stored next offsets of these partitions; partitions without a row are left out. The
  // default asks offsetStore().
  virtual OffsetMap loadOffsets(const std::vector<TopicPartition>& partitions);

  // In ONE transaction: write `records` (all non-empty batches; possibly only records the sink
  // reports as bad), call awaitReportedRecords() right before COMMIT when it reported any, and
  // apply every update as a compare-and-set (storeOffsets()):
  //   expected set:     UPDATE … SET next_offset = :next WHERE key AND next_offset = :expected
  //   expected nullopt: INSERT … unless a row exists
  // If any update changes no row, roll back and return false; else commit and return true.
  virtual bool writeBatch(std::span<const SinkRecord> records,
                          std::span<const OffsetUpdate> offsets) = 0;

  // The compare-and-set of every update through offsetStore(), inside the sink's open
  // transaction. false = fenced: a stored value was not the expected one (logged); the sink rolls
  // back and writeBatch() returns false.
  bool storeOffsets(std::span<const OffsetUpdate> offsets);

  // The one place a batch's classified failure becomes what the worker understands: kRetriable →
  // RetriableError (the batch comes again after the backoff; `backoff`, when set, is passed to
  // context().timeout()), kBadRecord (data rejected without a record to blame) and kFatal →
  // std::runtime_error (the task fails). `destination` names the database in the message.
  [[noreturn]] void failWrite(WriteFailure failure, std::string_view destination,
                              std::string_view what, size_t records,
                              std::optional<std::chrono::milliseconds> backoff = std::nullopt);

  // Pipelining (see above): called inside writeBatch(), which then returns true with the
  // transaction's outcome still to be read by awaitOutcome().
  void outcomePending() { outcome_pending_ = true; }
  // The outcome of the transaction writeBatch() left pending: true = committed; false = not
  // written (rolled back, e.g. records the sink must write another way), so the helper rewinds
  // it for redelivery. Throws RetriableError when the outcome is unknown or the failure transient
  // (rewound as well, and logged) and anything else for a fatal failure. Only called after
  // outcomePending(); the default is for sinks that never call it.
  virtual bool awaitOutcome() { return true; }

  // Most records per writeBatch() call (a sink sets it from batch.size in start()); 0 = no limit.
  void setMaxBatchSize(size_t records) { max_batch_size_ = records; }
  size_t maxBatchSize() const { return max_batch_size_; }

  // The one place a bad record (conversion error, constraint or type violation) is decided: to
  // the errant record reporter when the worker has one (which throws under errors.tolerance=none),
  // else a fatal error naming the record's topic, partition and offset.
  void reportBadRecord(const SinkRecord& record, const std::exception& error);
  void reportBadRecord(const SinkRecord& record, std::exception_ptr error);
  // A batch's rows, mapped in the task's context (conversions retried under errors.retry.timeout)
  // with every record that cannot be converted reported before anything is written — under
  // errors.tolerance=none the first one fails the task here. `mapped`: rows a sink's fast path
  // already converted (RecordMapper::Mapped), which are not converted again.
  RecordMapper::Batch mapBatch(RecordMapper& mapper, std::span<const SinkRecord> records,
                               RecordMapper::Mapped mapped = {});
  // A transaction that skips reported records must not commit before they are safe in the
  // dead-letter queue: waits (offset.flush.timeout.ms) for every record reported since the last
  // call. Throws RetriableError when they are not acknowledged in time (the batch comes again)
  // and std::runtime_error when a DLQ write failed (the task fails; nothing is committed past it).
  void awaitReportedRecords();

 private:
  // Returns false when a compare-and-set failed (the rest of the batch was abandoned and rewound).
  bool writeChunk(std::span<const SinkRecord> records);
  void fence(std::span<const SinkRecord> unwritten);
  // Reads the pending outcome, if any; false when the pending batch did not commit, in which case
  // it and `in_hand` (records delivered but not written yet) have been rewound.
  bool settle(std::span<const SinkRecord> in_hand = {});

  // A transaction whose outcome awaitOutcome() has yet to read.
  struct InFlight {
    std::vector<OffsetUpdate> updates;
    std::map<TopicPartition, int64_t> first_offsets;  // its first record per partition
  };

  // Next offset per open partition that committed transactions cover; nullopt = no row.
  std::map<TopicPartition, std::optional<int64_t>> stored_;
  // The same after the pending transaction too: what the next compare-and-set expects.
  std::map<TopicPartition, std::optional<int64_t>> written_;
  std::optional<InFlight> in_flight_;
  bool outcome_pending_ = false;
  bool reported_ = false;  // records reported since the last awaitReportedRecords()
  // A fatal outcome of a pipelined transaction read inside preCommit()/open()/close(), where the
  // worker treats every error as a reason to rewind: the next put() fails the task with it.
  std::exception_ptr fatal_;
  size_t max_batch_size_ = 0;
};

}  // namespace ksink
