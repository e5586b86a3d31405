// SourceDatabase: what a table source asks of its database — the tables there are, a table's
// columns and primary key, the database's clock, and a query read a batch of rows at a time —
// with a PostgreSQL (libpq) and a SQLite (SQLiteCpp) implementation. The querier above it
// (TableQuerier) holds the JDBC source's logic once for both.
//
// Failures: DbError, classified as the database layer classifies them (DbFailure): kRetriable
// (a lost connection, a lock) means the caller may drop what it had open and try again.
// Single-threaded (the task's thread), except cancel().
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "ksink/db/db_failure.h"
#include "ksink/schema.h"
#include "ksink/value.h"
#include "sql_time.h"

namespace ksink::jdbc {

class DbError : public std::runtime_error {
 public:
  DbError(DbFailure kind, const std::string& what, bool connecting = false)
      : std::runtime_error(what), kind_(kind), connecting_(connecting) {}
  DbFailure kind() const { return kind_; }
  // Whether it is a failure to connect (the server away, or refusing: a wrong password).
  bool connecting() const { return connecting_; }

 private:
  DbFailure kind_;
  bool connecting_;
};

struct TableRef {
  std::string catalog;  // the database's name (PostgreSQL); empty for SQLite
  std::string schema;   // empty for SQLite
  std::string name;

  // Unquoted, the JDBC source's protocol-1 partition: "db.schema.table" / "table".
  std::string fqn() const;
  // "schema"."table" / "table", quoted.
  std::string quoted() const;
  friend auto operator<=>(const TableRef&, const TableRef&) = default;
};

struct TableColumn {
  std::string name;
  bool nullable = true;
  // The column's type is one whose values have no zone (PostgreSQL's `timestamp`): read and
  // compared in db.timezone.
  bool zoneless_timestamp = false;
};

struct TableInfo {
  std::vector<TableColumn> columns;  // in the table's order
  std::vector<std::string> key;      // the primary key's columns, in its order; empty: none
  std::string auto_increment;        // the auto-increment column, empty when none
  const TableColumn* column(const std::string& name) const;
};

// A commit horizon (PostgreSQL): how far a table's rows are final. Taken in this order: `bound`,
// the largest incrementing value visible (or the database's clock, for timestamps), then `open`,
// every transaction open at that moment (their virtual transaction ids, and the sessions holding
// them, for a warning). Once none of `open` is still running, no transaction can commit a row at
// or below `bound` any more, provided values are assigned in increasing order by the transaction
// that writes the row (a sequence or identity default, now() or clock_timestamp()): those that
// could were open then, and have ended. Prepared transactions count as open.
struct Horizon {
  std::optional<int64_t> incrementing_bound;  // nullopt: no rows yet (incrementing modes)
  std::optional<Instant> timestamp_bound;     // timestamp modes
  std::vector<std::string> open;              // virtual transaction ids
  std::vector<std::string> sessions;          // "pid <n>" of the sessions holding them
};

// A query parameter: an incrementing value or a timestamp.
using QueryParam = std::variant<int64_t, Instant>;

// One row as the querier needs it: the values, and where the row stands for the mode's offset.
struct FetchedRow {
  std::vector<Value> values;            // in the result's column order
  std::optional<Instant> timestamp;     // the first non-null timestamp column (timestamp modes)
  std::optional<int64_t> incrementing;  // the incrementing column (incrementing modes)
};

struct QuerySpec {
  std::string sql;
  std::vector<QueryParam> params;
  std::vector<std::string> timestamp_columns;  // read into FetchedRow::timestamp
  std::string incrementing_column;             // read into FetchedRow::incrementing
  const TableInfo* table = nullptr;            // nullptr in query mode (every column optional)
};

// An open query, read a batch at a time; the database keeps the rest until asked (a server-side
// cursor, a stepped statement): never the whole result in memory.
class RowCursor {
 public:
  virtual ~RowCursor() = default;
  // The result's columns with their Connect schemas (known once the query ran).
  virtual const std::vector<Schema::Field>& columns() const = 0;
  // Appends the next rows to `out`, up to `max` (or as many as the previous call's `max`: a
  // cursor may read a batch ahead); false once the result has no more rows after them.
  virtual bool fetch(size_t max, std::vector<FetchedRow>& out) = 0;
};

class SourceDatabase {
 public:
  virtual ~SourceDatabase() = default;
  // Every table (and view, when `types` has VIEW) the user may read, outside system schemas;
  // only those of `schema` when it is not empty.
  virtual std::vector<TableRef> listTables(const std::vector<std::string>& types,
                                           const std::string& schema) = 0;
  virtual TableInfo describe(const TableRef& table) = 0;
  // The database's current time.
  virtual Instant now() = 0;
  // The n-th (1-based) parameter's placeholder in SQL text: "$1" / "?".
  virtual std::string placeholder(int n) const = 0;
  // The SQL expression comparing and ordering by `column` as a timestamp (`zoneless`: a column
  // with no zone, read in db.timezone).
  virtual std::string timestampExpression(const std::string& quoted_column,
                                          bool zoneless) const = 0;
  // Runs `spec`; the cursor stays valid until it is destroyed, and only one is open at a time.
  virtual std::unique_ptr<RowCursor> query(const QuerySpec& spec) = 0;
  // Whether commits can land out of order behind what was read (PostgreSQL's concurrent
  // writers; not SQLite's, whose writers take turns): then the querier reads only up to a
  // settled horizon.
  virtual bool commitsOutOfOrder() const { return false; }
  // A horizon for `from_clause` (a quoted table, or "(<query>) AS q"), with the largest value of
  // `incrementing_expression` when not empty; the clock's when `timestamps`. Its `open` are also
  // the transactions running now: an earlier horizon none of whose `open` is among them is
  // settled.
  virtual Horizon horizon(const std::string& from_clause,
                          const std::string& incrementing_expression, bool timestamps) {
    (void)from_clause;
    (void)incrementing_expression;
    (void)timestamps;
    return {};
  }

  // Any thread: abandon a query that is running (the task stops). Best effort.
  virtual void cancel() {}
};

}  // namespace ksink::jdbc
