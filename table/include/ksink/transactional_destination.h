// TransactionalDestination: the database side of TransactionalSinkTask's exactly-once pattern,
// which each table sink implements (PostgreSQL, SQLite, a user's own). The task drives — which
// records, in which transactions, with which offset updates, and what an outcome means for the
// worker — and calls down into the destination for what only the database can do: load the stored
// offsets (offsetStore()), write one batch in one transaction (writeBatch()), read a pipelined
// transaction's outcome (awaitOutcome()).
//
// While writing a batch, what the destination needs of the task comes through the BatchScope it is
// handed for that call; it never reaches its task otherwise. Failures go back classified once, as
// WriteError (write_failure.h); a RetriableError passes through as is; anything else fails the
// task.
//
// Thread-safety: called only from the owning task's thread.
#pragma once

#include <cstddef>
#include <exception>
#include <span>

#include "ksink/offset_store.h"
#include "ksink/record_mapper.h"
#include "ksink/sink_record.h"

namespace ksink {

// What a destination may ask of its task while writing one batch; valid for that writeBatch()
// call only.
class BatchScope {
 public:
  virtual ~BatchScope() = default;

  // The compare-and-set of the batch's offset updates through the destination's OffsetStore,
  // inside its open transaction. false = fenced (a stored value was not the expected one; logged):
  // the destination rolls back and returns Written::kFenced.
  virtual bool storeOffsets() = 0;
  // The one place a bad record (conversion error, constraint or type violation) is decided: to the
  // errant record reporter when the worker has one (which throws under errors.tolerance=none), else
  // a fatal error naming the record's topic, partition and offset.
  virtual void reportBadRecord(const SinkRecord& record, const std::exception& error) = 0;
  // Right before COMMIT: a transaction that skips reported records waits (offset.flush.timeout.ms)
  // until the dead-letter queue has them. Throws RetriableError when they are not acknowledged in
  // time (the batch comes again) and std::runtime_error when a DLQ write failed (nothing is
  // committed past it). Returns at once when nothing was reported.
  virtual void awaitReportedRecords() = 0;
  // The batch's rows, converted in the task's context (conversions retried under
  // errors.retry.timeout), every record that cannot be converted reported before anything is
  // written. `mapped`: rows a fast path already converted, not converted again.
  virtual RecordMapper::Batch map(RecordMapper& mapper, std::span<const SinkRecord> records,
                                  RecordMapper::Mapped mapped = {}) = 0;
};

class TransactionalDestination {
 public:
  // What writeBatch() did with the batch.
  enum class Written {
    kCommitted,  // rows and offsets are durable
    kPending,    // pipelined: COMMIT sent, its outcome read later by awaitOutcome()
    kFenced,     // a compare-and-set failed; rolled back, nothing written
  };

  virtual ~TransactionalDestination() = default;

  // Where the destination keeps its offsets (table `ksink_offsets`).
  virtual OffsetStore& offsetStore() = 0;

  // Most records per writeBatch() call (the sink's batch.size); 0 = no limit.
  virtual size_t maxBatchSize() const { return 0; }

  // In ONE transaction: write `records` (possibly only records reported as bad), call
  // scope.awaitReportedRecords() right before COMMIT, and scope.storeOffsets(); when that returns
  // false, roll back and return kFenced. Pipelining: send the rest of the transaction with its
  // COMMIT and return kPending without waiting; the task calls awaitOutcome() before anything that
  // depends on it.
  virtual Written writeBatch(std::span<const SinkRecord> records, BatchScope& scope) = 0;

  // The outcome of the transaction writeBatch() left pending: true = committed; false = not
  // written (rolled back, e.g. records to be written another way), so the task rewinds it for
  // redelivery. Throws WriteError or RetriableError when the outcome is unknown or the failure
  // transient (rewound too) and anything else for a fatal failure.
  virtual bool awaitOutcome() { return true; }

  // The task stops: finish what is in flight and close the connection. Must not throw.
  virtual void stop() noexcept {}
};

}  // namespace ksink
