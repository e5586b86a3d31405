// SqliteTables: the SQLite sink's view of its tables (PRAGMA table_info, kept until DDL or an
// error may have changed them) and the toolkit's TablePolicy::Catalog over them: CREATE TABLE and
// ADD COLUMN with SqliteDialect's SQL and type mapping. DDL runs inside the write transaction,
// which holds SQLite's write lock, so what table_info says stays true until commit.
// Single-threaded: the task's thread, on its connection.
#pragma once

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ksink/table_policy.h"

namespace ksink::sqlite {

class SqliteTables final : public TablePolicy::Catalog {
 public:
  using Columns = std::unordered_map<std::string, std::string>;  // lower(name) → declared type

  SqliteTables(SQLite::Database& db, TablePolicy policy);

  // The columns of `layout.table` once TablePolicy made it ready (created / evolved); `missing`
  // gets the columns it still lacks (auto.evolve=false). Throws ConfigException for a missing
  // table without auto.create, SQLite::Exception for database failures.
  const Columns& ready(const RecordMapper::Layout& layout, std::vector<std::string>& missing);
  // The columns `table` has, read again when `refresh` (empty: no such table).
  const Columns& columns(const std::string& table, bool refresh);

  // Whether DDL ran since the last call (the caller forgets what depends on the tables).
  bool takeDdlRan() { return std::exchange(ddl_ran_, false); }
  void forget() { tables_.clear(); }
  void reset() noexcept { table_info_.tryReset(); }

  bool exists(const std::string& table, bool refresh) override;
  bool hasColumn(const std::string& table, const std::string& column) override;
  void create(const RecordMapper::Layout& layout) override;
  void addColumn(const std::string& table, const RecordMapper::Column& column) override;
  std::string display(const std::string& table) override;

 private:
  void ddl(const std::string& sql);

  SQLite::Database& db_;
  TablePolicy policy_;
  SQLite::Statement table_info_;
  std::unordered_map<std::string, Columns> tables_;
  bool ddl_ran_ = false;
};


}  // namespace ksink::sqlite
