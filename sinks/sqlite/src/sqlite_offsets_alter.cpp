#include "sqlite_offsets_alter.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <climits>
#include <filesystem>
#include <stdexcept>

#include "ksink/sqlite/sqlite_sink_task.h"
#include "ksink/table_sink_config.h"
#include "sqlite_dialect.h"

namespace ksink::sqlite {

void alterSqliteOffsets(const Config& config, const std::optional<OffsetMap>& offsets) {
  const auto connector = TableSinkConfig::parse(config).connector_name;
  const auto path = SqliteSinkTask::pathFromUrl(config.getString("connection.url"));
  const int busy_ms =
      static_cast<int>(std::clamp<int64_t>(config.getLong("sqlite.busy.timeout.ms"), 0, INT32_MAX));
  try {
    if (!offsets) {
      if (!std::filesystem::exists(path)) {
        spdlog::info("sqlite sink: {} does not exist: no stored offsets to forget", path);
        return;
      }
      SQLite::Database db(path, SQLite::OPEN_READWRITE, busy_ms);
      if (!SQLite::Statement(db, SqliteDialect::offsetsTableExists()).executeStep()) {
        spdlog::info("sqlite sink: {} has no ksink_offsets table: no stored offsets to forget",
                     path);
        return;
      }
      SQLite::Statement remove(db, SqliteDialect::deleteOffsets());
      remove.bind(1, connector);
      spdlog::info("sqlite sink: deleted {} row(s) of connector {} from ksink_offsets in {}",
                   remove.exec(), connector, path);
      return;
    }
    SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE, busy_ms);
    SQLite::Transaction txn(db, SQLite::TransactionBehavior::IMMEDIATE);
    db.exec(SqliteDialect::createOffsetsTable());
    SQLite::Statement upsert(db, SqliteDialect::upsertOffset());
    for (const auto& [tp, offset] : *offsets) {
      upsert.bind(1, connector);
      upsert.bind(2, tp.topic);
      upsert.bind(3, tp.partition);
      upsert.bind(4, static_cast<int64_t>(offset));
      upsert.exec();
      upsert.reset();
    }
    txn.commit();
    spdlog::info("sqlite sink: set {} row(s) of connector {} in ksink_offsets in {}",
                 offsets->size(), connector, path);
  } catch (const SQLite::Exception& e) {
    throw std::runtime_error(fmt::format("SQLite {}: {}", path, e.what()));
  }
}

}  // namespace ksink::sqlite
