// SqliteRowWriter: the SQLite sink's bulk path. A batch's rows are written in record order inside
// the caller's transaction: runs of rows with the same layout through a prepared multi-row
// statement (a few dozen rows per INSERT: most of multi-row VALUES' speed-up), the rest (and any
// chunk SQLite refused as a whole) row by row, so a bad row is found and reported alone; a row
// whose value does not fit its column, or whose table lacks its columns (auto.evolve=false), is
// reported without running anything. Statements are prepared once per layout and kept.
//
// Throws SQLite::Exception for failures that are not a bad record (sqliteFailure()).
// Single-threaded: the task's thread, on its connection.
#pragma once

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ksink/record_mapper.h"
#include "ksink/table_sink_config.h"
#include "ksink/transactional_destination.h"
#include "sqlite_binder.h"
#include "sqlite_tables.h"

namespace ksink::sqlite {

class SqliteRowWriter {
 public:
  SqliteRowWriter(SQLite::Database& db, SqliteTables& tables,
                  TableSinkConfig::InsertMode insert_mode)
      : db_(db), tables_(tables), insert_mode_(insert_mode) {}

  // Bad rows are reported through `scope`.
  void write(const std::vector<RecordMapper::Row>& rows, BatchScope& scope);
  // Statements and table views may be stale (DDL ran, or a transaction failed after it).
  void forget() {
    plans_.clear();
    tables_.forget();
  }

 private:
  using Layout = RecordMapper::Layout;
  struct Plan {
    std::shared_ptr<const Layout> layout;  // keeps the cache key's address from being reused
    std::unique_ptr<SQLite::Statement> statement;  // null: nothing to run for this layout
    std::unique_ptr<SQLite::Statement> multi;      // `multi_rows` rows at once (insert, upsert)
    size_t multi_rows = 0;
    std::vector<ColumnBinding> columns;      // per parameter
    std::vector<size_t> order;               // layout column per parameter
    std::optional<ConfigException> refused;  // why no row of the layout can be written
  };

  Plan& planFor(const std::shared_ptr<const Layout>& layout, bool is_delete);
  std::optional<std::string> bindRow(SQLite::Statement& st, const Plan& plan,
                                     const RecordMapper::Row& row, size_t first);
  void writeRow(Plan& plan, const RecordMapper::Row& row, BatchScope& scope);
  size_t writeRows(Plan& plan, const std::vector<RecordMapper::Row>& rows, size_t at, size_t end,
                   BatchScope& scope);

  SQLite::Database& db_;
  SqliteTables& tables_;
  TableSinkConfig::InsertMode insert_mode_;
  std::unordered_map<const Layout*, Plan> plans_;
  std::optional<Plan> refused_;  // the last layout whose table lacks columns (not kept)
  std::vector<std::string> scratch_ = std::vector<std::string>(64);
  std::vector<size_t> chunk_;  // rows bound into the multi-row statement
};

}  // namespace ksink::sqlite
