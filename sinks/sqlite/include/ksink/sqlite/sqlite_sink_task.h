// SqliteSinkTask: the SQLite reference sink, exactly once. Rows and the offsets that cover them are
// written in one `BEGIN IMMEDIATE … COMMIT` per batch (TransactionalSinkTask does the bookkeeping
// and the compare-and-set fencing), so a crash at any point leaves each record in the table once.
//
// Keys: connection.url (`sqlite:///abs/path.db`, `sqlite:rel.db`, `jdbc:sqlite:path` or a plain
// path), sqlite.synchronous (FULL: a committed batch survives power loss, which matters because
// the offsets live in the file), sqlite.busy.timeout.ms, plus the table keys of TableSinkConfig.
// The file is opened in WAL mode; several processes may write the same file (SQLite serialises
// them; waiting for the lock is bounded by the busy timeout, then the batch is retried).
//
// Failure taxonomy, decided in one place (sqlite_failure.h, sqliteFailure(), into the toolkit's
// WriteFailure):
//   SQLITE_BUSY / SQLITE_LOCKED / SQLITE_FULL      → RetriableError (batch redelivered)
//   constraint or type violation of one row, or a  → errant record reporter, else the task fails
//   table lacking its columns (auto.evolve=false)    naming topic/partition/offset
//   anything else (I/O error, corrupt file, missing table without auto.create) → task fails
// Missing tables and columns are decided by the toolkit's TablePolicy.
//
// Parts (sinks/sqlite/src): SqliteDestination (the TransactionalDestination the task drives: the
// batch's transaction), SqliteSinkConfig, SqliteOffsetStore (ksink_offsets), SqliteTables
// (the catalog), SqliteRowWriter (the bulk path), SqliteBinder (the type mapping), SqliteDialect
// (every statement's text).
//
// Thread-safety: a SinkTask; the worker calls it from one thread. One SQLite connection per task.
#pragma once

#include <memory>
#include <string>

#include "ksink/config.h"
#include "ksink/config_def.h"
#include "ksink/transactional_sink_task.h"

namespace ksink::sqlite {

class SqliteSinkTask final : public TransactionalSinkTask {
 public:
  // The sink's own keys plus TableSinkConfig's (SqliteSinkConfig).
  static const ConfigDef& configDef();
  // The file path a connection.url names; throws ConfigException for an unsupported URL.
  static std::string pathFromUrl(const std::string& url);

  std::string version() const override;

 protected:
  // Opens the database (clear error when the file cannot be opened or is not a database), sets
  // WAL, synchronous and the busy timeout, creates ksink_offsets, and checks that the tables of
  // the configured `topics` exist unless auto.create=true. stop() closes it.
  std::unique_ptr<TransactionalDestination> openDestination(const Config& config) override;
};

}  // namespace ksink::sqlite
