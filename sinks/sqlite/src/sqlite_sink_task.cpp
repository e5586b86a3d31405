#include "ksink/sqlite/sqlite_sink_task.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Transaction.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <stdexcept>
#include <thread>

#include "ksink/record_mapper.h"
#include "ksink/table_policy.h"
#include "sqlite_dialect.h"
#include "sqlite_failure.h"
#include "sqlite_offset_store.h"
#include "sqlite_row_writer.h"
#include "sqlite_sink_config.h"
#include "sqlite_tables.h"

namespace ksink::sqlite {
namespace {

SQLite::Database openDatabase(const SqliteSinkConfig& config) {
  // NOMUTEX: the connection is only ever used from the task's thread, so SQLite's own per-call
  // locking is pure cost.
  SQLite::Database db(config.path,
                      SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE | SQLite::OPEN_NOMUTEX,
                      config.busy_timeout_ms);
  const auto mode = db.execAndGet(SqliteDialect::journalModeWal()).getString();
  if (lower(mode) != "wal")
    spdlog::warn("sqlite sink: {} runs in journal mode {}, not WAL", config.path, mode);
  db.exec(SqliteDialect::synchronous(config.synchronous));
  return db;
}

}  // namespace

// The sink's parts on its one connection.
class SqliteSinkTask::Impl {
 public:
  Impl(SqliteSinkTask& task, const Config& config, SqliteSinkConfig parsed)
      : config_(std::move(parsed)),
        mapper_(config_.table, config),
        db_(openDatabase(config_)),
        offsets_(db_, config_.table.connector_name, config_.path),
        tables_(db_, TablePolicy(config_.table)),
        rows_(db_, tables_, config_.table.insert_mode,
              [&task](const SinkRecord& record, const std::exception& error) {
                task.reportBadRecord(record, error);
              }) {}

  const SqliteSinkConfig& config() const { return config_; }
  RecordMapper& mapper() { return mapper_; }
  SQLite::Database& db() { return db_; }
  SqliteOffsetStore& offsets() { return offsets_; }
  SqliteTables& tables() { return tables_; }
  SqliteRowWriter& rows() { return rows_; }

 private:
  SqliteSinkConfig config_;
  RecordMapper mapper_;
  SQLite::Database db_;
  SqliteOffsetStore offsets_;
  SqliteTables tables_;
  SqliteRowWriter rows_;
};

SqliteSinkTask::SqliteSinkTask() = default;
SqliteSinkTask::~SqliteSinkTask() = default;

std::string SqliteSinkTask::version() const {
  return KSINK_SQLITE_VERSION;
}

std::string SqliteSinkTask::pathFromUrl(const std::string& url) {
  return SqliteSinkConfig::pathFromUrl(url);
}

const ConfigDef& SqliteSinkTask::configDef() {
  return SqliteSinkConfig::configDef();
}

void SqliteSinkTask::start(const Config& config) {
  auto parsed = SqliteSinkConfig::parse(config);
  setMaxBatchSize(static_cast<size_t>(parsed.table.batch_size));
  const auto path = parsed.path;
  // Tasks starting at once on a fresh file race to switch it to WAL and create its tables; the
  // loser can get SQLITE_BUSY without the busy handler being asked (a lock SQLite will not wait
  // for, to avoid a deadlock). Starting again after a pause succeeds; give up after the busy
  // timeout, as a statement would.
  const auto give_up =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(parsed.busy_timeout_ms);
  for (int attempt = 1;; ++attempt) {
    try {
      impl_ = std::make_unique<Impl>(*this, config, parsed);
      break;
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
  const auto& c = impl_->config();
  TablePolicy(c.table).checkTablesAtStart(impl_->tables(), c.table, config.getList("topics"),
                                          c.path);
  spdlog::info("sqlite sink: writing to {} (synchronous={}, busy timeout {} ms)", c.path,
               c.synchronous, c.busy_timeout_ms);
}

void SqliteSinkTask::stop() {
  impl_.reset();
}

OffsetStore* SqliteSinkTask::offsetStore() {
  return impl_ ? &impl_->offsets() : nullptr;
}

bool SqliteSinkTask::writeBatch(std::span<const SinkRecord> records,
                                std::span<const OffsetUpdate> offsets) {
  auto& s = *impl_;
  auto batch = mapBatch(s.mapper(), records);

  bool committed = false;
  try {
    SQLite::Transaction txn(s.db(), SQLite::TransactionBehavior::IMMEDIATE);
    // Compare-and-set first: a fenced task learns it before writing anything.
    if (storeOffsets(offsets)) {
      s.rows().write(batch.rows);
      awaitReportedRecords();  // the records this transaction skips are in the DLQ first
      txn.commit();
      committed = true;
    }  // else the transaction rolls back as it goes out of scope
  } catch (const SQLite::Exception& e) {
    if (s.tables().takeDdlRan()) s.rows().forget();
    s.offsets().reset();
    s.tables().reset();
    failWrite(sqliteFailure(e), fmt::format("SQLite {}", s.config().path), e.what(),
              records.size());
  } catch (...) {
    if (s.tables().takeDdlRan()) s.rows().forget();
    throw;
  }
  if (!committed && s.tables().takeDdlRan()) s.rows().forget();
  s.tables().takeDdlRan();
  return committed;
}

}  // namespace ksink::sqlite
