#include "sqlite_source_database.h"

#include <SQLiteCpp/Statement.h>
#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>

#include "column_values.h"
#include "ksink/db/sql_identifier.h"
#include "ksink/sqlite_db/sqlite_failure.h"
#include "sqlite_column.h"

namespace ksink::jdbc {

class SqliteSourceDatabase::Cursor final : public RowCursor {
 public:
  Cursor(SqliteSourceDatabase& db, const QuerySpec& spec) : db_(db) {
    statement_ = db_.run([&](SQLite::Database& d) {
      auto st = std::make_unique<SQLite::Statement>(d, spec.sql);
      for (size_t i = 0; i < spec.params.size(); ++i) {
        const int at = static_cast<int>(i) + 1;
        if (const auto* n = std::get_if<int64_t>(&spec.params[i]))
          st->bind(at, *n);
        else
          st->bind(at, formatUtcTimestampMillis(std::get<Instant>(spec.params[i])));
      }
      return st;
    });
    for (int i = 0; i < statement_->getColumnCount(); ++i) {
      std::string name = statement_->getColumnName(i);
      std::string declared;
      try {
        declared = statement_->getColumnDeclaredType(i);
      } catch (const SQLite::Exception&) {
        // an expression: no declared type
      }
      const TableColumn* known = spec.table ? spec.table->column(name) : nullptr;
      columns_.emplace_back(name, declared, known ? known->nullable : true);
      fields_.push_back({name, columns_.back().schema()});
    }
    for (const auto& ts : spec.timestamp_columns)
      timestamp_at_.push_back(static_cast<int>(columnIndex(fields_, ts)));
    if (!spec.incrementing_column.empty())
      incrementing_at_ = static_cast<int>(columnIndex(fields_, spec.incrementing_column));
  }

  const std::vector<Schema::Field>& columns() const override { return fields_; }

  bool fetch(size_t max, std::vector<FetchedRow>& out) override {
    for (size_t n = 0; n < max; ++n) {
      const bool row = db_.run([&](SQLite::Database&) { return statement_->executeStep(); });
      if (!row) return false;
      FetchedRow f;
      f.values.reserve(columns_.size());
      for (size_t c = 0; c < columns_.size(); ++c)
        f.values.push_back(columns_[c].read(statement_->getColumn(static_cast<int>(c))));
      for (int at : timestamp_at_) {
        const auto column = statement_->getColumn(at);
        if (column.isNull()) continue;
        f.timestamp = parseSqlTimestamp(column.getString()).truncatedToMillis();
        break;
      }
      if (incrementing_at_ >= 0 && !statement_->getColumn(incrementing_at_).isNull())
        f.incrementing = statement_->getColumn(incrementing_at_).getInt64();
      out.push_back(std::move(f));
    }
    return true;
  }

 private:
  SqliteSourceDatabase& db_;
  std::unique_ptr<SQLite::Statement> statement_;
  std::vector<SqliteColumn> columns_;
  std::vector<Schema::Field> fields_;
  std::vector<int> timestamp_at_;
  int incrementing_at_ = -1;
};

SqliteSourceDatabase::SqliteSourceDatabase(std::string path, int busy_timeout_ms)
    : path_(std::move(path)), busy_timeout_ms_(busy_timeout_ms) {}

SQLite::Database& SqliteSourceDatabase::database() {
  if (!db_) {
    db_.emplace(path_, SQLite::OPEN_READONLY, busy_timeout_ms_);
    handle_ = db_->getHandle();
  }
  return *db_;
}

template <typename F>
auto SqliteSourceDatabase::run(F&& work) -> decltype(work(std::declval<SQLite::Database&>())) {
  try {
    return work(database());
  } catch (const SQLite::Exception& e) {
    throw DbError(sqlite::sqliteFailure(e), fmt::format("SQLite {}: {}", path_, e.what()));
  }
}

std::vector<TableRef> SqliteSourceDatabase::listTables(const std::vector<std::string>& types,
                                                       const std::string&) {
  bool tables = false, views = false;
  for (auto t : types) {
    std::transform(t.begin(), t.end(), t.begin(), ::toupper);
    tables = tables || t == "TABLE";
    views = views || t == "VIEW";
  }
  return run([&](SQLite::Database& d) {
    SQLite::Statement st(d,
                         "SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view') "
                         "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name");
    std::vector<TableRef> out;
    while (st.executeStep()) {
      const std::string type = st.getColumn(1).getString();
      if ((type == "table" && tables) || (type == "view" && views))
        out.push_back({"", "", st.getColumn(0).getString()});
    }
    return out;
  });
}

TableInfo SqliteSourceDatabase::describe(const TableRef& table) {
  return run([&](SQLite::Database& d) {
    SQLite::Statement st(d, "SELECT name, type, \"notnull\", pk FROM pragma_table_info(?)");
    st.bind(1, table.name);
    TableInfo info;
    std::vector<std::pair<int, std::string>> key;
    std::string integer_key;
    while (st.executeStep()) {
      TableColumn c;
      c.name = st.getColumn(0).getString();
      c.nullable = st.getColumn(2).getInt() == 0;
      std::string type = st.getColumn(1).getString();
      std::transform(type.begin(), type.end(), type.begin(), ::toupper);
      if (const int pk = st.getColumn(3).getInt(); pk > 0) {
        key.emplace_back(pk, c.name);
        if (type == "INTEGER") integer_key = c.name;
      }
      info.columns.push_back(std::move(c));
    }
    std::sort(key.begin(), key.end());
    for (auto& [position, name] : key) info.key.push_back(std::move(name));
    // An INTEGER PRIMARY KEY is the rowid: SQLite's auto-increment column.
    if (info.key.size() == 1 && !integer_key.empty()) {
      info.auto_increment = integer_key;
      // It is never NULL, whatever the table declares.
      for (auto& c : info.columns)
        if (c.name == integer_key) c.nullable = false;
    }
    return info;
  });
}

Instant SqliteSourceDatabase::now() {
  return run([](SQLite::Database& d) {
    return parseSqlTimestamp(
        d.execAndGet("SELECT strftime('%Y-%m-%d %H:%M:%f', 'now')").getString());
  });
}

std::string SqliteSourceDatabase::timestampExpression(const std::string& quoted_column,
                                                      bool) const {
  return fmt::format("strftime('%Y-%m-%d %H:%M:%f', {})", quoted_column);
}

std::unique_ptr<RowCursor> SqliteSourceDatabase::query(const QuerySpec& spec) {
  return std::make_unique<Cursor>(*this, spec);
}

void SqliteSourceDatabase::cancel() {
  // sqlite3_interrupt is safe from any thread while the connection is open.
  if (sqlite3* handle = handle_.load()) sqlite3_interrupt(handle);
}

}  // namespace ksink::jdbc
