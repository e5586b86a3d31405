#include "sqlite_tables.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>

#include "ksink/detail/config_parse.h"
#include "sqlite_dialect.h"

namespace ksink::sqlite {

SqliteTables::SqliteTables(SQLite::Database& db, TablePolicy policy)
    : db_(db), policy_(policy), table_info_(db, SqliteDialect::tableInfo()) {}

const SqliteTables::Columns& SqliteTables::columns(const std::string& table, bool refresh) {
  if (!refresh)
    if (auto it = tables_.find(table); it != tables_.end()) return it->second;
  Columns cols;
  table_info_.bind(1, table);
  while (table_info_.executeStep())
    cols[detail::asciiLower(table_info_.getColumn(0).getString())] =
        table_info_.getColumn(1).getString();
  table_info_.reset();
  return tables_[table] = std::move(cols);
}

const SqliteTables::Columns& SqliteTables::ready(const RecordMapper::Layout& layout,
                                                 std::vector<std::string>& missing) {
  missing = policy_.resolve(*this, layout, layout.columns.size(), /*for_delete=*/false).missing;
  return columns(layout.table, false);
}

bool SqliteTables::exists(const std::string& table, bool refresh) {
  return !columns(table, refresh).empty();
}

bool SqliteTables::hasColumn(const std::string& table, const std::string& column) {
  return columns(table, false).contains(detail::asciiLower(column));
}

void SqliteTables::create(const RecordMapper::Layout& layout) {
  ddl(SqliteDialect::createTable(layout));
}

void SqliteTables::addColumn(const std::string& table, const RecordMapper::Column& column) {
  ddl(SqliteDialect::addColumn(table, column));
}

std::string SqliteTables::display(const std::string& table) {
  return quoteIdentifier(table);
}

void SqliteTables::ddl(const std::string& sql) {
  spdlog::info("sqlite sink: {}", sql);
  ddl_ran_ = true;
  db_.exec(sql);
}

}  // namespace ksink::sqlite
