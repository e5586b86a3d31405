#include "sqlite_destination.h"

#include <SQLiteCpp/Transaction.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <utility>

#include "ksink/detail/config_parse.h"
#include "ksink/sqlite_db/sqlite_failure.h"
#include "ksink/table_policy.h"
#include "ksink/write_failure.h"
#include "sqlite_dialect.h"

namespace ksink::sqlite {
namespace {

SQLite::Database openDatabase(const SqliteSinkConfig& config) {
  // NOMUTEX: the connection is only ever used from the task's thread, so SQLite's own per-call
  // locking is pure cost.
  SQLite::Database db(config.path,
                      SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE | SQLite::OPEN_NOMUTEX,
                      config.busy_timeout_ms);
  const auto mode = db.execAndGet(SqliteDialect::journalModeWal()).getString();
  if (detail::asciiLower(mode) != "wal")
    spdlog::warn("sqlite sink: {} runs in journal mode {}, not WAL", config.path, mode);
  db.exec(SqliteDialect::synchronous(config.synchronous));
  return db;
}

}  // namespace

SqliteDestination::SqliteDestination(const Config& config, SqliteSinkConfig parsed)
    : config_(std::move(parsed)),
      mapper_(config_.table, config),
      db_(openDatabase(config_)),
      offsets_(db_, config_.table.connector_name, config_.path),
      tables_(db_, TablePolicy(config_.table)),
      rows_(db_, tables_, config_.table.insert_mode) {}

std::unique_ptr<SqliteDestination> SqliteDestination::open(const Config& config) {
  auto parsed = SqliteSinkConfig::parse(config);
  const auto path = parsed.path;
  // Tasks starting at once on a fresh file race to switch it to WAL and create its tables; the
  // loser can get SQLITE_BUSY without the busy handler being asked (a lock SQLite will not wait
  // for, to avoid a deadlock). Starting again after a pause succeeds; give up after the busy
  // timeout, as a statement would.
  const auto give_up =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(parsed.busy_timeout_ms);
  std::unique_ptr<SqliteDestination> destination;
  for (int attempt = 1; !destination; ++attempt) {
    try {
      destination = std::make_unique<SqliteDestination>(config, parsed);
    } catch (const SQLite::Exception& e) {
      if (e.getErrorCode() == SQLITE_BUSY && std::chrono::steady_clock::now() < give_up) {
        spdlog::debug("sqlite sink: {} busy at start (attempt {}): {}", path, attempt, e.what());
        std::this_thread::sleep_for(std::chrono::milliseconds(std::min(10 * attempt, 200)));
        continue;
      }
      throw std::runtime_error(
          fmt::format("connection.url: cannot use '{}' as a SQLite database: {}", path, e.what()));
    }
  }
  const auto& c = destination->config_;
  TablePolicy(c.table).checkTablesAtStart(destination->tables_, c.table, config.getList("topics"),
                                          c.path);
  spdlog::info("sqlite sink: writing to {} (synchronous={}, busy timeout {} ms)", c.path,
               c.synchronous, c.busy_timeout_ms);
  return destination;
}

SqliteDestination::Written SqliteDestination::writeBatch(std::span<const SinkRecord> records,
                                                         BatchScope& scope) {
  auto batch = scope.map(mapper_, records);
  bool committed = false;
  try {
    SQLite::Transaction txn(db_, SQLite::TransactionBehavior::IMMEDIATE);
    // Compare-and-set first: a fenced task learns it before writing anything.
    if (scope.storeOffsets()) {
      rows_.write(batch.rows, scope);
      scope.awaitReportedRecords();  // the records this transaction skips are in the DLQ first
      txn.commit();
      committed = true;
    }  // else the transaction rolls back as it goes out of scope
  } catch (const SQLite::Exception& e) {
    if (tables_.takeDdlRan()) rows_.forget();
    offsets_.reset();
    tables_.reset();
    throw WriteError(sqliteFailure(e), fmt::format("SQLite {}", config_.path), e.what());
  } catch (...) {
    if (tables_.takeDdlRan()) rows_.forget();
    throw;
  }
  if (!committed && tables_.takeDdlRan()) rows_.forget();
  tables_.takeDdlRan();
  return committed ? Written::kCommitted : Written::kFenced;
}

}  // namespace ksink::sqlite
