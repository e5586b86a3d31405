// PgTableCache: the destination tables a task writes to, read from the catalog once and kept,
// created (auto.create) and given new columns (auto.evolve) when a record layout needs them — as
// the toolkit's TablePolicy decides; this class is its PostgreSQL catalog (PgTable, PgSql DDL,
// PgTypes).
//
// DDL runs in its own short transaction, before the batch's transaction starts, so a batch never
// holds a table-level lock while it copies; two tasks racing to create the same table or column
// both succeed (the loser's "already exists" is ignored and the catalog re-read).
// forget() drops everything cached, e.g. after an error that may come from a stale view.
// Single-threaded.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ksink/pg/pg_connection.h"
#include "ksink/record_mapper.h"
#include "ksink/table_policy.h"
#include "pg_table.h"
#include "table_id.h"

namespace ksink::postgres {

class PgTableCache {
 public:
  PgTableCache(std::string table_name_format, TablePolicy policy,
               TableSinkConfig::TableStyle style = TableSinkConfig::TableStyle::kConfluent)
      : table_name_format_(std::move(table_name_format)), policy_(policy), style_(style) {}

  struct Resolved {
    const PgTable* table = nullptr;    // nullptr: a table to delete from that does not exist
    std::vector<std::string> missing;  // layout columns the table lacks (auto.evolve=false)
  };

  // The table for `layout`'s rows, with the columns they need (key columns only for deletes).
  // Throws ConfigException when the table does not exist and auto.create is off, PgError for
  // database failures.
  Resolved resolve(PgConnection& connection, const RecordMapper::Layout& layout, bool for_delete);

  // The table named `table` (TableSinkConfig::tableName()), or nullptr when it does not exist.
  const PgTable* find(PgConnection& connection, const std::string& table);
  // The table for `layout`'s rows if it exists with every column they need; nullptr otherwise.
  // Never runs DDL, so it may be called inside a transaction.
  const PgTable* ready(PgConnection& connection, const RecordMapper::Layout& layout);
  // At start: the tables of `topics` exist unless auto.create (TablePolicy::checkTablesAtStart).
  void checkTablesAtStart(PgConnection& connection, const TableSinkConfig& config,
                          const std::vector<std::string>& topics);

  TableId tableId(const std::string& table) const {
    return TableId::parse(table, table_name_format_);
  }
  void forget() { tables_.clear(); }
  // Forgets everything once more than kMaxTables are cached (a router fed by record values can
  // name a table per value). Called between batches, when no one holds a PgTable pointer.
  static constexpr size_t kMaxTables = 1024;
  void bound() {
    if (tables_.size() > kMaxTables) forget();
  }

 private:
  // Runs one DDL statement in its own transaction; "already exists" counts as done.
  void runDdl(PgConnection& connection, const std::string& sql);

  std::string table_name_format_;
  class Catalog;

  TablePolicy policy_;
  TableSinkConfig::TableStyle style_;                     // whose column types the DDL declares
  std::map<std::string, std::optional<PgTable>> tables_;  // by TableSinkConfig::tableName()
};

}  // namespace ksink::postgres
