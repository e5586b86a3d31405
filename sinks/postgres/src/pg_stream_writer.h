// PgStreamWriter: the PostgreSQL sink's fast path. Records are converted one by one and streamed
// by binary COPY into the table while the server stores the rows before, in one transaction. It
// covers the common batch — every table and column in place, no tombstone, no bad record, every
// value with a binary form, and in upsert mode keys that are all new (none twice in the batch,
// none in the table: the server's 23505 says otherwise) — and gives up (everything rolled back) on
// anything else, which the general path (PgBatchWriter) then handles with the rows converted so
// far (a record is converted once). It converts
// without retries: a conversion that throws (RetriableError included) sends the batch to the
// general path, which retries it under errors.retry.timeout.
//
// Pipelined (one table per batch; always so for upserts): the offsets compare-and-set runs first,
// the COPY goes as "COPY ...; COMMIT", and write() returns kPending once the last row is sent,
// leaving the server to store the rest and commit while the worker gathers the next batch;
// awaitOutcome() reads the outcome. Unpipelined, a batch of inserts may span tables: one COPY
// after another, then the compare-and-set and COMMIT.
//
// Throws PgError for database failures. Single-threaded: the task's thread.
#pragma once

#include <span>
#include <string>

#include "ksink/pg/pg_connection.h"
#include "ksink/record_mapper.h"
#include "ksink/transactional_destination.h"
#include "pg_row_writer.h"
#include "pg_table_cache.h"
#include "postgres_sink_config.h"

namespace ksink::postgres {

class PgStreamWriter {
 public:
  PgStreamWriter(const PostgresSinkConfig& config, RecordMapper& mapper, PgTableCache& tables,
                 PgRowWriter& writer)
      : config_(config), mapper_(mapper), tables_(tables), writer_(writer) {}

  // What write() did with a batch. kGaveUp: nothing (the general path takes it); kSecondTable:
  // nothing, because the batch spans tables and `pipelined` was asked.
  enum class Outcome { kCommitted, kPending, kFenced, kGaveUp, kSecondTable };
  // `mapped` holds the rows converted so far, whatever the outcome: the general path (or a second
  // write() of the same batch) takes them instead of converting those records again. The
  // offsets' compare-and-set goes through `scope`.
  Outcome write(PgConnection& connection, std::span<const SinkRecord> records, BatchScope& scope,
                bool pipelined, RecordMapper::Mapped& mapped);
  // Whether write() may take the batch: inserts, and upserts while their keys are new.
  bool streamable(std::span<const SinkRecord> records) const;

  // The pending transaction's outcome (kPending): its COPY's and COMMIT's results. true =
  // committed; false = nothing pending. Throws the PgError that failed it, the session rolled back
  // (or, when even that failed, `reconnect` set); a 23505 of upserts is remembered, so the next
  // batches are staged.
  bool awaitOutcome(PgConnection& connection, bool& reconnect);
  size_t pendingRecords() const { return pending_records_; }
  // The task stops: what put() sent is not cut off with the session.
  void finishPending(PgConnection& connection);

 private:
  const PostgresSinkConfig& config_;
  RecordMapper& mapper_;
  PgTableCache& tables_;
  PgRowWriter& writer_;
  // Records of the transaction whose COPY and COMMIT results are pending (0: none), and its
  // table (quoted).
  size_t pending_records_ = 0;
  std::string pending_table_;
};

}  // namespace ksink::postgres
