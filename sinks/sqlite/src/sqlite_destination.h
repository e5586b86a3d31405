// SqliteDestination: the SQLite sink's TransactionalDestination — its parts on one connection, and
// the batch's one `BEGIN IMMEDIATE … COMMIT` (compare-and-set first, then the rows, the DLQ wait,
// COMMIT). A SQLite::Exception becomes a WriteError of sqliteFailure()'s kind, after forgetting the
// statements and catalog views it may have made stale. Single-threaded: the task's thread.
#pragma once

#include <SQLiteCpp/Database.h>

#include <cstddef>
#include <memory>
#include <span>

#include "ksink/config.h"
#include "ksink/record_mapper.h"
#include "ksink/transactional_destination.h"
#include "sqlite_offset_store.h"
#include "sqlite_row_writer.h"
#include "sqlite_sink_config.h"
#include "sqlite_tables.h"

namespace ksink::sqlite {

class SqliteDestination final : public TransactionalDestination {
 public:
  // Opens the database (WAL, synchronous, busy timeout), creates ksink_offsets and checks the
  // tables of the configured `topics` unless auto.create=true. Tasks starting at once on a fresh
  // file may find it busy: retried up to the busy timeout. Throws with the reason otherwise.
  static std::unique_ptr<SqliteDestination> open(const Config& config);

  SqliteDestination(const Config& config, SqliteSinkConfig parsed);

  OffsetStore& offsetStore() override { return offsets_; }
  size_t maxBatchSize() const override { return static_cast<size_t>(config_.table.batch_size); }
  Written writeBatch(std::span<const SinkRecord> records, BatchScope& scope) override;

 private:
  SqliteSinkConfig config_;
  RecordMapper mapper_;
  SQLite::Database db_;
  SqliteOffsetStore offsets_;
  SqliteTables tables_;
  SqliteRowWriter rows_;
};

}  // namespace ksink::sqlite
