#include "pg_sql.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ksink/transactional_sink_task.h"

namespace ksink::postgres {
namespace {

std::string columnList(std::span<const std::string> columns, std::string_view prefix = "") {
  std::string out;
  for (size_t i = 0; i < columns.size(); ++i) {
    if (i) out += ", ";
    out += prefix;
    out += quoteIdentifier(columns[i]);
  }
  return out;
}

// t."k1" = s."k1" AND t."k2" = s."k2"
std::string keyMatch(std::span<const std::string> keys) {
  std::string out;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (i) out += " AND ";
    const auto k = quoteIdentifier(keys[i]);
    out += fmt::format("ksink_t.{0} = ksink_s.{0}", k);
  }
  return out;
}

// UPDATE t AS ksink_t SET "c" = ksink_s."c", … FROM staging AS ksink_s WHERE keys match
std::string updateStatement(const TableId& table, std::string_view staging,
                            std::span<const std::string> columns, size_t key_count) {
  std::string set;
  for (size_t i = key_count; i < columns.size(); ++i) {
    if (i > key_count) set += ", ";
    set += fmt::format("{0} = ksink_s.{0}", quoteIdentifier(columns[i]));
  }
  return fmt::format("UPDATE {} AS ksink_t SET {} FROM {} AS ksink_s WHERE {}", table.quoted(), set,
                     staging, keyMatch(columns.subspan(0, key_count)));
}

// The staging table is never analyzed, so the planner may join it to a large table by a hash or
// merge join over the whole table; one index probe per staged row is what a batch wants.
std::string nestedLoops(const std::string& statement) {
  return "SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off; " + statement +
         "; SET LOCAL enable_hashjoin TO DEFAULT; SET LOCAL enable_mergejoin TO DEFAULT";
}

std::string offsetsTable() {
  return quoteIdentifier(TransactionalSinkTask::kOffsetsTable);
}

}  // namespace

namespace {

std::string columnSpec(const PgSql::ColumnDef& column) {
  return fmt::format("{} {}{}{}", quoteIdentifier(column.name), column.type,
                     column.default_sql.empty() ? "" : " DEFAULT " + column.default_sql,
                     column.not_null ? " NOT NULL" : "");
}

}  // namespace

std::string PgSql::createTable(const TableId& table, std::span<const ColumnDef> columns,
                               std::span<const std::string> key) {
  std::string out = fmt::format("CREATE TABLE IF NOT EXISTS {} (", table.quoted());
  for (size_t i = 0; i < columns.size(); ++i) {
    if (i) out += ", ";
    out += columnSpec(columns[i]);
  }
  if (!key.empty()) out += fmt::format(", PRIMARY KEY ({})", columnList(key));
  out += ")";
  return out;
}

std::string PgSql::addColumn(const TableId& table, const ColumnDef& column) {
  auto spec = column;
  spec.not_null = column.not_null && !column.default_sql.empty();
  return fmt::format("ALTER TABLE {} ADD COLUMN IF NOT EXISTS {}", table.quoted(),
                     columnSpec(spec));
}

std::string PgSql::copyFrom(std::string_view target, std::span<const std::string> columns,
                            bool binary) {
  return fmt::format("COPY {} ({}) FROM STDIN{}", target, columnList(columns),
                     binary ? " (FORMAT binary)" : "");
}

std::string PgSql::stagingName(int n) {
  return fmt::format("pg_temp.ksink_stage_{}", n);
}

std::string PgSql::createStaging(std::string_view staging, const TableId& table,
                                 std::span<const std::string> columns,
                                 const std::vector<bool>& as_timestamptz) {
  std::string select;
  for (size_t i = 0; i < columns.size(); ++i) {
    if (i) select += ", ";
    const auto c = quoteIdentifier(columns[i]);
    select += i < as_timestamptz.size() && as_timestamptz[i]
                  ? fmt::format("{0}::timestamptz AS {0}", c)
                  : c;
  }
  return fmt::format(
      "CREATE TEMP TABLE IF NOT EXISTS {} ON COMMIT DELETE ROWS AS SELECT {} FROM {} "
      "WITH NO DATA",
      staging, select, table.quoted());
}

std::string PgSql::insertFromStaging(const TableId& table, std::string_view staging,
                                     std::span<const std::string> columns) {
  const auto cols = columnList(columns);
  return fmt::format("INSERT INTO {} ({}) SELECT {} FROM {}", table.quoted(), cols, cols, staging);
}

std::string PgSql::upsertFromStaging(const TableId& table, std::string_view staging,
                                     std::span<const std::string> columns, size_t key_count) {
  std::string out;
  if (key_count < columns.size()) out = updateStatement(table, staging, columns, key_count) + "; ";
  out += fmt::format(
      "INSERT INTO {0} ({1}) SELECT {2} FROM {3} AS ksink_s WHERE NOT EXISTS (SELECT 1 FROM {0} "
      "AS ksink_t WHERE {4})",
      table.quoted(), columnList(columns), columnList(columns, "ksink_s."), staging,
      keyMatch(columns.subspan(0, key_count)));
  return nestedLoops(out);
}

std::string PgSql::updateFromStaging(const TableId& table, std::string_view staging,
                                     std::span<const std::string> columns, size_t key_count) {
  return nestedLoops(updateStatement(table, staging, columns, key_count));
}

std::string PgSql::deleteFromStaging(const TableId& table, std::string_view staging,
                                     std::span<const std::string> key_columns) {
  return nestedLoops(fmt::format("DELETE FROM {} AS ksink_t USING {} AS ksink_s WHERE {}",
                                 table.quoted(), staging, keyMatch(key_columns)));
}

std::string PgSql::sessionSettings(std::string_view time_zone) {
  return fmt::format(
      "SET idle_in_transaction_session_timeout = '20s'; SET lock_timeout = '10s'; SET TimeZone = "
      "{}",
      quoteLiteral(time_zone));
}

std::string PgSql::savepoint(std::string_view name) {
  return fmt::format("SAVEPOINT {}", name);
}

std::string PgSql::releaseSavepoint(std::string_view name) {
  return fmt::format("RELEASE SAVEPOINT {}", name);
}

std::string PgSql::rollbackToSavepoint(std::string_view name) {
  return fmt::format("ROLLBACK TO SAVEPOINT {0}; RELEASE SAVEPOINT {0}", name);
}

std::string PgSql::begin() {
  return "BEGIN";
}

std::string PgSql::commit() {
  return "COMMIT";
}

std::string PgSql::emptyStaging(std::string_view staging) {
  return fmt::format("DELETE FROM {}", staging);
}

std::string PgSql::dropStaging(std::span<const std::string> staging) {
  return fmt::format("DROP TABLE IF EXISTS {}", fmt::join(staging, ", "));
}

std::string PgSql::truncate(const TableId& table) {
  return fmt::format("TRUNCATE TABLE {}", table.quoted());
}

std::string PgSql::tableOid() {
  return "SELECT to_regclass($1)::oid::int8";
}

std::string PgSql::describeColumns() {
  return "SELECT a.attname, bt.oid::int8,"
         " CASE WHEN bt.typcategory = 'A' THEN bt.typelem ELSE 0 END::int8,"
         " format_type(a.atttypid, a.atttypmod), a.attnotnull"
         " FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid"
         " JOIN pg_type bt ON bt.oid = CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE t.oid END"
         " WHERE a.attrelid = $1::oid AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum";
}

std::string PgSql::constraintsImmediate() {
  return "SET CONSTRAINTS ALL IMMEDIATE";
}

std::string PgSql::rollback() {
  return "ROLLBACK";
}

std::string PgSql::createOffsetsTable() {
  return fmt::format(
      "CREATE TABLE IF NOT EXISTS {} (connector text NOT NULL, topic text NOT NULL, "
      "\"partition\" integer NOT NULL, next_offset bigint NOT NULL, "
      "updated_at timestamptz NOT NULL DEFAULT now(), "
      "PRIMARY KEY (connector, topic, \"partition\"))",
      offsetsTable());
}

std::string PgSql::selectOffsets() {
  return fmt::format("SELECT topic, \"partition\", next_offset FROM {} WHERE connector = $1",
                     offsetsTable());
}

std::string PgSql::compareAndSetOffset() {
  return fmt::format(
      "UPDATE {} SET next_offset = $4, updated_at = now() WHERE connector = $1 AND topic = $2 "
      "AND \"partition\" = $3 AND next_offset = $5",
      offsetsTable());
}

std::string PgSql::insertOffsetIfAbsent() {
  return fmt::format(
      "INSERT INTO {} (connector, topic, \"partition\", next_offset) VALUES ($1, $2, $3, $4) "
      "ON CONFLICT DO NOTHING",
      offsetsTable());
}

std::string PgSql::offsetsTableExists() {
  return fmt::format("SELECT to_regclass('{}') IS NOT NULL", offsetsTable());
}

std::string PgSql::deleteOffsets() {
  return fmt::format("DELETE FROM {} WHERE connector = $1", offsetsTable());
}

std::string PgSql::upsertOffset() {
  return fmt::format(
      "INSERT INTO {} (connector, topic, \"partition\", next_offset) VALUES ($1, $2, $3, $4) "
      "ON CONFLICT (connector, topic, \"partition\") DO UPDATE SET "
      "next_offset = EXCLUDED.next_offset, updated_at = now()",
      offsetsTable());
}

}  // namespace ksink::postgres
