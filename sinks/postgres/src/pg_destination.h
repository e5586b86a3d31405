// PgDestination: the PostgreSQL sink's TransactionalDestination — its parts on one session, and
// the one place a batch's outcome is settled: which path writes it (PgStreamWriter, else
// PgBatchWriter), what a PgError means for the worker (a WriteError of its kind, after forgetting
// what the failure may have made stale), and what a pipelined outcome leaves for the next batch.
// Single-threaded: the task's thread.
#pragma once

#include <cstddef>
#include <span>

#include "ksink/config.h"
#include "ksink/pg/pg_error.h"
#include "ksink/record_mapper.h"
#include "ksink/transactional_destination.h"
#include "pg_batch_writer.h"
#include "pg_offset_store.h"
#include "pg_row_writer.h"
#include "pg_session.h"
#include "pg_stream_writer.h"
#include "pg_table_cache.h"
#include "postgres_sink_config.h"

namespace ksink::postgres {

class PgDestination final : public TransactionalDestination {
 public:
  explicit PgDestination(const Config& config);

  // Connects, creates ksink_offsets if needed and checks the destination tables of `topics`;
  // throws WriteError (kRetriable) when the server cannot be reached, and fails the start (with the
  // reason) when a table is missing with auto.create=false.
  void start(const Config& config);
  const PostgresSinkConfig& config() const { return config_; }

  OffsetStore& offsetStore() override { return offsets_; }
  size_t maxBatchSize() const override { return static_cast<size_t>(config_.table.batch_size); }
  Written writeBatch(std::span<const SinkRecord> records, BatchScope& scope) override;
  bool awaitOutcome() override;
  void stop() noexcept override;

 private:
  void forgetServerState() {
    writer_.reset();
    tables_.forget();
  }
  // The one place a PgError becomes a WriteError.
  [[noreturn]] void fail(const PgError& error);

  PostgresSinkConfig config_;
  PgSession session_;
  PgOffsetStore offsets_;
  RecordMapper mapper_;
  PgTableCache tables_;
  PgRowWriter writer_;
  PgStreamWriter stream_;
  PgBatchWriter batches_;
  // The pipelined insert path gave up on a batch that spans tables: batches left before it is
  // tried again (they stream one COPY after another and commit in place).
  int unpipelined_batches_ = 0;
  // The pending transaction failed on a bad record (or, upserting, met keys the table has): its
  // redelivery takes the general path, which isolates the record (or stages the batch).
  bool isolate_next_ = false;
};

}  // namespace ksink::postgres
