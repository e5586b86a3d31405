// TransactionalSinkTask: the exactly-once pattern for sinks whose destination has transactions.
// The sink keeps, per (connector, topic, partition), the next offset to read in the destination
// itself (table `ksink_offsets(connector, topic, partition, next_offset)`, primary key
// (connector, topic, partition)) and writes it in the same transaction as the rows:
//
//   open()      loads the stored offsets (the destination's OffsetStore) and rewinds the consumer
//   to them with
//               context().offset(); a partition with no stored row starts where the consumer
//               group says.
//   put()       drops records the destination already holds (offset below the stored one), splits
//               the rest into transactions of at most the destination's maxBatchSize() records, and
//               hands each to its writeBatch() with the offset updates to apply in that
//               transaction (BatchScope::storeOffsets()). Each update is
//               a compare-and-set against the value this task last read or wrote (`expected`;
//               nullopt = no row yet: insert only if still absent).
//               When a compare-and-set fails, another task wrote the partition since (this task is
//               a zombie that lost it, or the partition moved): the destination rolled back,
//               nothing was written; the helper reloads the stored offsets and rewinds every
//               partition of the unwritten records to them, so nothing is written twice or skipped.
//   preCommit() returns only what committed transactions cover (never more than `current`), so
//               the consumer group's offsets trail the destination and show true lag.
//   close()     forgets the partitions.
//
// Pipelining (optional): a destination can let the database commit while the worker gathers the
// next batch. Its writeBatch() then checks the compare-and-set, sends the rest of the transaction
// with its COMMIT and returns Written::kPending without waiting; awaitOutcome() reads the outcome
// later. The helper calls it before anything that depends on it — the next put() (empty ones too)
// or writeBatch(), preCommit(), open() and close() — and until then neither reports the batch's
// offsets from preCommit() nor drops records as already written on its account. A batch that did
// not commit is rewound, with the records in hand, to the stored offsets and comes again; the next
// batch's compare-and-set expects the pending one's offsets, so it can never be written past an
// uncommitted one.
//
// A sink subclasses this task and implements openDestination() — its TransactionalDestination
// (transactional_destination.h: the offsets' SQL, the batch's transaction) — and version(). The
// helper drives every call; the destination calls nothing of the task but the BatchScope it is
// given per batch.
// Failure taxonomy (write_failure.h): a destination classifies its driver's failures once and
// throws WriteError; the helper turns it into RetriableError (the worker redelivers the batch;
// records already committed are dropped by the stored-offset check) or a fatal error. Bad records
// go through BatchScope::reportBadRecord(). Missing tables and columns: TablePolicy.
//
// Thread-safety: like every SinkTask, called only from its worker task thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "ksink/offset_store.h"
#include "ksink/sink_record.h"
#include "ksink/sink_task.h"
#include "ksink/topic_partition.h"
#include "ksink/transactional_destination.h"
#include "ksink/write_failure.h"

namespace ksink {

class TransactionalSinkTask : public SinkTask {
 public:
  // The destination table both reference sinks keep their offsets in.
  static constexpr std::string_view kOffsetsTable = "ksink_offsets";

  // expected: the stored value this task last saw (nullopt = no row); next_offset: the value to
  // store, last written offset + 1.
  using OffsetUpdate = OffsetStore::Update;

  // Opens the destination (openDestination()).
  void start(const Config& config) final;
  void open(const std::vector<TopicPartition>& partitions) final;
  void put(std::span<const SinkRecord> records) final;
  OffsetMap preCommit(const OffsetMap& current_offsets) final;
  void close(const std::vector<TopicPartition>& partitions) final;
  // Stops the destination (what is in flight, its connection) and releases it.
  void stop() final;
  // The destinations convert records themselves (RecordMapper, and PostgreSQL's COPY stream
  // written from the bytes), with the runtime's errant record reporter and conversion retries.
  bool convertsRecords() const final { return true; }

  // What committed transactions of this task cover, per open partition.
  OffsetMap committedOffsets() const;

 protected:
  // The destination every later call writes to, connected and checked; throws (the task fails at
  // start, with the reason) when it cannot be used. Called once, by start().
  virtual std::unique_ptr<TransactionalDestination> openDestination(const Config& config) = 0;

 private:
  class Scope;

  TransactionalDestination& destination() const { return *destination_; }
  // Returns false when a compare-and-set failed (the rest of the batch was abandoned and rewound).
  bool writeChunk(std::span<const SinkRecord> records);
  // A WriteError becomes what the worker understands (see write_failure.h): RetriableError, with
  // the destination's backoff asked of context().timeout(), or a fatal error.
  [[noreturn]] void fail(const WriteError& error, size_t records);
  // call(), a call into the destination about `records` records, with a WriteError it throws
  // turned into what the worker understands (fail()).
  template <typename Call>
  auto guarded(Call&& call, size_t records);
  void fence(std::span<const SinkRecord> unwritten);
  // Reads the pending outcome, if any; false when the pending batch did not commit, in which case
  // it and `in_hand` (records delivered but not written yet) have been rewound.
  bool settle(std::span<const SinkRecord> in_hand = {});

  // A transaction whose outcome awaitOutcome() has yet to read.
  struct InFlight {
    std::vector<OffsetUpdate> updates;
    std::map<TopicPartition, int64_t> first_offsets;  // its first record per partition
    size_t records = 0;
  };

  std::unique_ptr<TransactionalDestination> destination_;
  // Next offset per open partition that committed transactions cover; nullopt = no row.
  std::map<TopicPartition, std::optional<int64_t>> stored_;
  // The same after the pending transaction too: what the next compare-and-set expects.
  std::map<TopicPartition, std::optional<int64_t>> written_;
  std::optional<InFlight> in_flight_;
  // A fatal outcome of a pipelined transaction read inside preCommit()/open()/close(), where the
  // worker treats every error as a reason to rewind: the next put() fails the task with it.
  std::exception_ptr fatal_;
};

}  // namespace ksink
