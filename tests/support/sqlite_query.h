// queryRows: runs a query on a SQLite file and returns every row as text ("NULL" for null), so
// tests compare table contents in one expression. Opens its own read-only connection.
#pragma once

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <string>
#include <vector>

namespace ksink::testing {

using Rows = std::vector<std::vector<std::string>>;

inline Rows queryRows(const std::string& file, const std::string& sql) {
  SQLite::Database db(file, SQLite::OPEN_READONLY);
  db.setBusyTimeout(10000);
  SQLite::Statement st(db, sql);
  Rows rows;
  while (st.executeStep()) {
    std::vector<std::string> row;
    for (int i = 0; i < st.getColumnCount(); ++i)
      row.push_back(st.getColumn(i).isNull() ? "NULL" : st.getColumn(i).getString());
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace ksink::testing
