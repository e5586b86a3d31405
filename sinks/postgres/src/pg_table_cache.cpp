#include "pg_table_cache.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <stdexcept>

#include "pg_sql.h"
#include "pg_types.h"

namespace ksink::postgres {

const PgTable* PgTableCache::find(PgConnection& connection, const std::string& table) {
  auto it = tables_.find(table);
  if (it == tables_.end())
    it = tables_.emplace(table, PgTable::describe(connection, tableId(table))).first;
  return it->second ? &*it->second : nullptr;
}

const PgTable* PgTableCache::ready(PgConnection& connection, const RecordMapper::Layout& layout) {
  const PgTable* table = find(connection, layout.table);
  if (!table) return nullptr;
  for (const auto& c : layout.columns)
    if (!table->column(c.name)) return nullptr;
  return table;
}

void PgTableCache::runDdl(PgConnection& connection, const std::string& sql) {
  try {
    connection.exec(sql);
  } catch (const PgError& e) {
    if (!e.createdByAnother()) throw;  // else another task created the table or column first
    spdlog::debug("{}: already done by another session ({})", sql, e.what());
  }
}

PgTableCache::Resolved PgTableCache::resolve(PgConnection& connection,
                                             const RecordMapper::Layout& layout, bool for_delete) {
  const size_t needed = for_delete ? layout.key_count : layout.columns.size();
  const PgTable* table = find(connection, layout.table);
  if (!table) {
    if (for_delete) return {};
    const auto id = tableId(layout.table);
    if (!auto_create_)
      throw std::runtime_error(fmt::format(
          "table {} does not exist and auto.create=false: create it or set auto.create=true",
          id.display()));
    std::vector<PgSql::ColumnDef> columns;
    std::vector<std::string> key;
    for (const auto& c : layout.columns) {
      columns.push_back(
          {c.name, PgTypes::columnType(*c.schema), c.primary_key || !c.schema->optional});
      if (c.primary_key) key.push_back(c.name);
    }
    spdlog::info("creating table {} ({} columns, primary key: {})", id.display(), columns.size(),
                 key.empty() ? "none" : fmt::format("{}", fmt::join(key, ", ")));
    runDdl(connection, PgSql::createTable(id, columns, key));
    tables_.erase(layout.table);
    table = find(connection, layout.table);
    if (!table)
      throw std::runtime_error(
          fmt::format("table {} is still missing after CREATE TABLE", id.display()));
  }
  auto missingOf = [&](const PgTable& t) {
    std::vector<std::string> missing;
    for (size_t i = 0; i < needed; ++i)
      if (!t.column(layout.columns[i].name)) missing.push_back(layout.columns[i].name);
    return missing;
  };
  auto missing = missingOf(*table);
  if (missing.empty()) return {table, {}};
  // Someone (another task, an operator) may have added them since we looked.
  tables_.erase(layout.table);
  table = find(connection, layout.table);
  if (!table) throw std::runtime_error(fmt::format("table {} disappeared", layout.table));
  missing = missingOf(*table);
  if (missing.empty()) return {table, {}};
  if (!auto_evolve_) return {table, std::move(missing)};
  for (const auto& name : missing) {
    for (const auto& c : layout.columns) {
      if (c.name != name) continue;
      spdlog::info("adding column {} {} to table {}", name, PgTypes::columnType(*c.schema),
                   table->id.display());
      runDdl(connection,
             PgSql::addColumn(table->id, {c.name, PgTypes::columnType(*c.schema), false}));
    }
  }
  tables_.erase(layout.table);
  table = find(connection, layout.table);
  if (!table) throw std::runtime_error(fmt::format("table {} disappeared", layout.table));
  return {table, missingOf(*table)};
}

}  // namespace ksink::postgres
