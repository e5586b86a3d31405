// SqliteSourceDatabase: a table source's SQLite file (SourceDatabase over SQLiteCpp), opened read
// only with a busy timeout. A query is one prepared statement stepped a batch at a time: SQLite
// holds its read snapshot until the statement is done (in WAL mode writers go on meanwhile).
// Timestamps are ISO-8601 text read as UTC, compared and ordered through
// strftime('%Y-%m-%d %H:%M:%f', …) so that text written with 'T', without a fraction or with an
// offset compares by the instant it names, to the millisecond.
#pragma once

#include <SQLiteCpp/Database.h>

#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include "source_database.h"

struct sqlite3;

namespace ksink::jdbc {

class SqliteSourceDatabase final : public SourceDatabase {
 public:
  SqliteSourceDatabase(std::string path, int busy_timeout_ms);

  std::vector<TableRef> listTables(const std::vector<std::string>& types,
                                   const std::string& schema) override;
  TableInfo describe(const TableRef& table) override;
  Instant now() override;
  std::string placeholder(int) const override { return "?"; }
  std::string timestampExpression(const std::string& quoted_column, bool zoneless) const override;
  std::unique_ptr<RowCursor> query(const QuerySpec& spec) override;
  void cancel() override;

 private:
  class Cursor;
  SQLite::Database& database();
  template <typename F>
  auto run(F&& work) -> decltype(work(std::declval<SQLite::Database&>()));

  std::string path_;
  int busy_timeout_ms_;
  std::optional<SQLite::Database> db_;
  std::atomic<sqlite3*> handle_{nullptr};  // db_'s, for cancel() from another thread
};

}  // namespace ksink::jdbc
