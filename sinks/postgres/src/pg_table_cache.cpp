#include "pg_table_cache.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <stdexcept>

#include "pg_sql.h"
#include "pg_types.h"

namespace ksink::postgres {

// TablePolicy's view of the cache, on one connection.
class PgTableCache::Catalog final : public TablePolicy::Catalog {
 public:
  Catalog(PgTableCache& cache, PgConnection& connection) : cache_(cache), connection_(connection) {}

  bool exists(const std::string& table, bool refresh) override {
    if (refresh) cache_.tables_.erase(table);
    return cache_.find(connection_, table) != nullptr;
  }
  bool hasColumn(const std::string& table, const std::string& column) override {
    const PgTable* t = cache_.find(connection_, table);
    return t && t->column(column);
  }
  void create(const RecordMapper::Layout& layout) override {
    const auto id = cache_.tableId(layout.table);
    std::vector<PgSql::ColumnDef> columns;
    std::vector<std::string> key;
    for (const auto& c : layout.columns) {
      columns.push_back({c.name, PgTypes::columnType(*c.schema, cache_.style_),
                         c.primary_key || !c.schema->optional,
                         PgTypes::defaultLiteral(*c.schema).value_or("")});
      if (c.primary_key) key.push_back(c.name);
    }
    spdlog::info("creating table {} ({} columns, primary key: {})", id.display(), columns.size(),
                 key.empty() ? "none" : fmt::format("{}", fmt::join(key, ", ")));
    cache_.runDdl(connection_, PgSql::createTable(id, columns, key));
  }
  void addColumn(const std::string& table, const RecordMapper::Column& c) override {
    const auto id = cache_.tableId(table);
    // Confluent's sink adds every column nullable; Debezium's makes a required field with a
    // default NOT NULL (ksink adds a required field without one nullable, where Debezium fails).
    const PgSql::ColumnDef column{
        c.name, PgTypes::columnType(*c.schema, cache_.style_),
        cache_.style_ == TableSinkConfig::TableStyle::kDebezium && !c.schema->optional,
        PgTypes::defaultLiteral(*c.schema).value_or("")};
    spdlog::info("adding column {} {} to table {}", c.name, column.type, id.display());
    cache_.runDdl(connection_, PgSql::addColumn(id, column));
  }
  std::string display(const std::string& table) override { return cache_.tableId(table).display(); }

 private:
  PgTableCache& cache_;
  PgConnection& connection_;
};

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
  Catalog catalog(*this, connection);
  auto resolution = policy_.resolve(
      catalog, layout, for_delete ? layout.key_count : layout.columns.size(), for_delete);
  if (!resolution.exists) return {};
  return {find(connection, layout.table), std::move(resolution.missing)};
}

void PgTableCache::checkTablesAtStart(PgConnection& connection, const TableSinkConfig& config,
                                      const std::vector<std::string>& topics) {
  Catalog catalog(*this, connection);
  policy_.checkTablesAtStart(catalog, config, topics);
}

}  // namespace ksink::postgres
