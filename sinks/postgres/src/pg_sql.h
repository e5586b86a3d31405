// PgSql: the text of every statement the PostgreSQL sink sends. Identifiers are always quoted
// (quoteIdentifier), values never appear in the text: rows travel by COPY, offsets as parameters.
//
// Write paths (see PostgresSinkTask):
//   insert          COPY t (cols) FROM STDIN [binary]
//   staged insert   COPY into a temp staging table, then INSERT INTO t SELECT … (used when values
//                   must be converted on the server, e.g. db.timezone for timestamp columns)
//   upsert          COPY into staging, then UPDATE the rows whose key exists and INSERT the others
//                   (… WHERE NOT EXISTS): plain inserts cost about half of INSERT … ON CONFLICT's
//                   speculative ones. A key inserted concurrently by another task makes the
//                   INSERT fail with 23505, a data error: the batch is then retried in parts
//                   (bad-record isolation), by which time the row exists and is updated.
//   update          COPY into staging, then UPDATE t SET … FROM staging WHERE key matches
//   delete          COPY keys into staging, then DELETE FROM t USING staging WHERE key matches
// Stateless; thread-safe.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "table_id.h"

namespace ksink::postgres {

class PgSql {
 public:
  struct ColumnDef {
    std::string name;
    std::string type;  // SQL type text, e.g. "bigint", "text[]"
    bool not_null = false;
    std::string default_sql;  // a literal, e.g. "42", "'dflt'"; empty for no DEFAULT
  };

  // CREATE TABLE IF NOT EXISTS t ("a" bigint DEFAULT 1 NOT NULL, …, PRIMARY KEY ("a"))
  static std::string createTable(const TableId& table, std::span<const ColumnDef> columns,
                                 std::span<const std::string> key);
  // ALTER TABLE t ADD COLUMN IF NOT EXISTS "c" type [DEFAULT x] [NOT NULL] (existing rows take
  // the default; NOT NULL only with one)
  static std::string addColumn(const TableId& table, const ColumnDef& column);

  // COPY <target> ("a", "b") FROM STDIN [(FORMAT binary)]; `target` is already quoted.
  static std::string copyFrom(std::string_view target, std::span<const std::string> columns,
                              bool binary);

  // A session-local staging table with the types of `columns` of `table`, emptied at every
  // commit. `as_timestamptz[i]` stages column i as timestamptz (converted by the final statement
  // with the session's TimeZone).
  static std::string createStaging(std::string_view staging, const TableId& table,
                                   std::span<const std::string> columns,
                                   const std::vector<bool>& as_timestamptz);
  static std::string stagingName(int n);

  // `columns` start with the `key_count` key columns. update/upsert/delete join the staging table
  // to the target by nested loops (one index probe per staged row) whatever the statistics say.
  static std::string insertFromStaging(const TableId& table, std::string_view staging,
                                       std::span<const std::string> columns);
  static std::string upsertFromStaging(const TableId& table, std::string_view staging,
                                       std::span<const std::string> columns, size_t key_count);
  static std::string updateFromStaging(const TableId& table, std::string_view staging,
                                       std::span<const std::string> columns, size_t key_count);
  static std::string deleteFromStaging(const TableId& table, std::string_view staging,
                                       std::span<const std::string> key_columns);

  // Run once per new session: a session that idles inside a transaction is one whose client
  // stopped (SIGSTOP, a hung host), so the server ends it and its locks (the offsets rows) do not
  // block the partitions' new owner; lock waits are bounded for the same reason and then
  // retried; TimeZone = `time_zone` (db.timezone), quoted as a literal.
  static std::string sessionSettings(std::string_view time_zone);
  // Savepoints (bad-record isolation's, the straight upsert's), and the statement that makes
  // deferred constraints fail inside one rather than only at COMMIT.
  static std::string savepoint(std::string_view name);
  static std::string releaseSavepoint(std::string_view name);
  static std::string rollbackToSavepoint(std::string_view name);  // and release it
  static std::string constraintsImmediate();
  static std::string begin();
  static std::string commit();
  static std::string rollback();
  // Empties a staging table already used in this transaction; TRUNCATE of a destination table
  // (a truncate event, inside the batch's transaction).
  static std::string emptyStaging(std::string_view staging);
  static std::string dropStaging(
      std::span<const std::string> staging);  // DROP TABLE IF EXISTS a, b
  static std::string truncate(const TableId& table);
  // The catalog: $1 quoted table name → its oid (NULL when absent); $1 oid → per column: name,
  // base type oid, array element type oid (0 if none), declared type, NOT NULL.
  static std::string tableOid();
  static std::string describeColumns();

  // The offsets table and its compare-and-set statements (parameters: $1 connector, $2 topic,
  // $3 partition, $4 new next_offset, $5 expected next_offset).
  static std::string createOffsetsTable();
  static std::string selectOffsets();  // $1 connector → topic, partition, next_offset
  static std::string compareAndSetOffset();
  static std::string insertOffsetIfAbsent();  // $1..$4
  // For `ksink offsets` on a stopped connector (KIP-875's alterOffsets), no compare-and-set:
  // whether the offsets table exists (in the session's search_path) → one boolean;
  static std::string offsetsTableExists();
  static std::string deleteOffsets();  // $1 connector: every row of it
  static std::string upsertOffset();   // $1..$4, whatever the stored next_offset
};

}  // namespace ksink::postgres
