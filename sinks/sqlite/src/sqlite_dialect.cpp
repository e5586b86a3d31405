#include "sqlite_dialect.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "ksink/transactional_sink_task.h"

namespace ksink::sqlite {
namespace {

std::string upper(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return std::toupper(c); });
  return out;
}

std::string columnList(const std::vector<RecordMapper::Column>& columns, size_t from, size_t to) {
  std::string out;
  for (size_t i = from; i < to; ++i) {
    if (i > from) out += ',';
    out += quoteIdentifier(columns[i].name);
  }
  return out;
}

std::string keyCondition(const RecordMapper::Layout& layout) {
  std::string out;
  for (size_t i = 0; i < layout.key_count; ++i) {
    if (i > 0) out += " AND ";
    out += quoteIdentifier(layout.columns[i].name) + "=?";
  }
  return out;
}

// A DEFAULT clause for a schema's default value, in the text the sink writes values of its type
// as (decimals and Connect's times as text); none for other logical types and nested values.
std::string defaultClause(const Schema& schema) {
  if (!schema.default_value) return "";
  const Value& v = *schema.default_value;
  switch (schema.logical()) {
    case Schema::Logical::kNone:
      break;
    case Schema::Logical::kDecimal:
      return v.kind() == Value::Kind::kBytes
                 ? " DEFAULT " +
                       quoteLiteral(Value::decimalToString(v.asBytes(), schema.decimalScale()))
                 : "";
    case Schema::Logical::kDate:
      return v.kind() == Value::Kind::kInt
                 ? " DEFAULT " + quoteLiteral(Value::dateToString(v.asInt()))
                 : "";
    case Schema::Logical::kTime:
      return v.kind() == Value::Kind::kInt
                 ? " DEFAULT " + quoteLiteral(Value::timeToString(v.asInt()))
                 : "";
    case Schema::Logical::kTimestamp:
      return v.kind() == Value::Kind::kInt
                 ? " DEFAULT " + quoteLiteral(Value::timestampToString(v.asInt()))
                 : "";
    default:
      return "";
  }
  switch (v.kind()) {
    case Value::Kind::kBoolean:
      return v.asBoolean() ? " DEFAULT 1" : " DEFAULT 0";
    case Value::Kind::kInt:
      return fmt::format(" DEFAULT {}", v.asInt());
    case Value::Kind::kDouble:
      return fmt::format(" DEFAULT {}", v.asDouble());
    case Value::Kind::kString:
      return " DEFAULT " + quoteLiteral(v.asString());
    default:
      return "";
  }
}

}  // namespace

std::string_view SqliteDialect::columnType(const Schema& schema) {
  switch (schema.logical()) {
    case Schema::Logical::kDecimal:
      return "NUMERIC";
    case Schema::Logical::kDate:
    case Schema::Logical::kTime:
    case Schema::Logical::kTimestamp:
    // Debezium's times as ISO-8601 text like Connect's, with every digit of their unit; the zoned
    // ones, uuid, JSON, XML and enums as the strings they are; Bits as the bit string ("0101").
    case Schema::Logical::kMicroTime:
    case Schema::Logical::kNanoTime:
    case Schema::Logical::kLocalTimestamp:
    case Schema::Logical::kMicroTimestamp:
    case Schema::Logical::kNanoTimestamp:
    case Schema::Logical::kZonedTimestamp:
    case Schema::Logical::kZonedTime:
    case Schema::Logical::kUuid:
    case Schema::Logical::kJson:
    case Schema::Logical::kXml:
    case Schema::Logical::kEnum:
    case Schema::Logical::kEnumSet:
    case Schema::Logical::kBits:
      return "TEXT";
    case Schema::Logical::kVariableScaleDecimal:
      // Not NUMERIC: its affinity would turn the text into a REAL of 15 significant digits, and
      // these decimals have any precision.
      return "TEXT";
    case Schema::Logical::kNone:
      break;
  }
  switch (schema.type) {
    case Schema::Type::kInt8:
    case Schema::Type::kInt16:
    case Schema::Type::kInt32:
    case Schema::Type::kInt64:
    case Schema::Type::kBoolean:
      return "INTEGER";
    case Schema::Type::kFloat32:
    case Schema::Type::kFloat64:
      return "REAL";
    case Schema::Type::kBytes:
      return "BLOB";
    case Schema::Type::kString:
    case Schema::Type::kArray:
    case Schema::Type::kMap:
    case Schema::Type::kStruct:
      return "TEXT";
  }
  return "TEXT";
}

SqliteDialect::Affinity SqliteDialect::affinity(std::string_view declared_type) {
  const auto t = upper(declared_type);
  if (t.find("INT") != std::string::npos) return Affinity::kInteger;
  if (t.find("CHAR") != std::string::npos || t.find("CLOB") != std::string::npos ||
      t.find("TEXT") != std::string::npos)
    return Affinity::kText;
  if (t.empty() || t.find("BLOB") != std::string::npos) return Affinity::kBlob;
  if (t.find("REAL") != std::string::npos || t.find("FLOA") != std::string::npos ||
      t.find("DOUB") != std::string::npos)
    return Affinity::kReal;
  return Affinity::kNumeric;
}

std::string SqliteDialect::createTable(const RecordMapper::Layout& layout) {
  std::string sql = "CREATE TABLE IF NOT EXISTS " + quoteIdentifier(layout.table) + " (";
  for (size_t i = 0; i < layout.columns.size(); ++i) {
    const auto& c = layout.columns[i];
    if (i > 0) sql += ", ";
    sql += quoteIdentifier(c.name) + " " + std::string(columnType(*c.schema));
    if (c.primary_key || !c.schema->optional) sql += " NOT NULL";
    sql += defaultClause(*c.schema);
  }
  if (layout.key_count > 0)
    sql += ", PRIMARY KEY(" + columnList(layout.columns, 0, layout.key_count) + ")";
  return sql + ")";
}

std::string SqliteDialect::addColumn(std::string_view table, const RecordMapper::Column& column) {
  // Nullable, as Confluent's sink adds columns; rows already in the table take the default.
  return fmt::format("ALTER TABLE {} ADD COLUMN {} {}{}", quoteIdentifier(table),
                     quoteIdentifier(column.name), columnType(*column.schema),
                     defaultClause(*column.schema));
}

std::string SqliteDialect::write(const RecordMapper::Layout& layout,
                                 TableSinkConfig::InsertMode mode, size_t rows) {
  const auto& cols = layout.columns;
  const size_t n = cols.size();
  if (mode == TableSinkConfig::InsertMode::kUpdate) {
    if (layout.key_count == n) return "";
    std::string set;
    for (size_t i = layout.key_count; i < n; ++i) {
      if (i > layout.key_count) set += ',';
      set += quoteIdentifier(cols[i].name) + "=?";
    }
    return fmt::format("UPDATE {} SET {} WHERE {}", quoteIdentifier(layout.table), set,
                       keyCondition(layout));
  }
  std::string row = "(";
  for (size_t i = 0; i < n; ++i) row += i == 0 ? "?" : ",?";
  row += ')';
  std::string values = row;
  for (size_t r = 1; r < rows; ++r) values += "," + row;
  std::string sql = fmt::format("INSERT INTO {} ({}) VALUES {}", quoteIdentifier(layout.table),
                                columnList(cols, 0, n), values);
  if (mode == TableSinkConfig::InsertMode::kUpsert && layout.key_count > 0) {
    sql += " ON CONFLICT(" + columnList(cols, 0, layout.key_count) + ") DO ";
    if (layout.key_count == n) return sql + "NOTHING";
    sql += "UPDATE SET ";
    for (size_t i = layout.key_count; i < n; ++i) {
      if (i > layout.key_count) sql += ',';
      sql += quoteIdentifier(cols[i].name) + "=excluded." + quoteIdentifier(cols[i].name);
    }
  }
  return sql;
}

std::string SqliteDialect::remove(const RecordMapper::Layout& layout) {
  return fmt::format("DELETE FROM {} WHERE {}", quoteIdentifier(layout.table),
                     keyCondition(layout));
}

std::string SqliteDialect::createOffsetsTable() {
  return fmt::format(
      "CREATE TABLE IF NOT EXISTS {} (\"connector\" TEXT NOT NULL, \"topic\" TEXT NOT NULL, "
      "\"partition\" INTEGER NOT NULL, \"next_offset\" INTEGER NOT NULL, "
      "PRIMARY KEY(\"connector\", \"topic\", \"partition\"))",
      quoteIdentifier(TransactionalSinkTask::kOffsetsTable));
}

std::string SqliteDialect::selectOffset() {
  return fmt::format(
      "SELECT \"next_offset\" FROM {} WHERE \"connector\" = ?1 AND \"topic\" = ?2 AND "
      "\"partition\" = ?3",
      quoteIdentifier(TransactionalSinkTask::kOffsetsTable));
}

std::string SqliteDialect::compareAndSetOffset() {
  return fmt::format(
      "UPDATE {} SET \"next_offset\" = ?4 WHERE \"connector\" = ?1 AND \"topic\" = ?2 AND "
      "\"partition\" = ?3 AND \"next_offset\" = ?5",
      quoteIdentifier(TransactionalSinkTask::kOffsetsTable));
}

std::string SqliteDialect::insertOffsetIfAbsent() {
  return fmt::format(
      "INSERT INTO {} (\"connector\", \"topic\", \"partition\", \"next_offset\") "
      "VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING",
      quoteIdentifier(TransactionalSinkTask::kOffsetsTable));
}

std::string SqliteDialect::tableInfo() {
  return "SELECT \"name\", \"type\" FROM pragma_table_info(?1)";
}

std::string SqliteDialect::truncate(std::string_view table) {
  return "DELETE FROM " + quoteIdentifier(table);
}

std::string SqliteDialect::journalModeWal() {
  return "PRAGMA journal_mode=WAL";
}

std::string SqliteDialect::synchronous(std::string_view mode) {
  return "PRAGMA synchronous=" + upper(mode);
}

std::string SqliteDialect::offsetsTableExists() {
  return fmt::format("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '{}'",
                     TransactionalSinkTask::kOffsetsTable);
}

std::string SqliteDialect::deleteOffsets() {
  return fmt::format("DELETE FROM {} WHERE \"connector\" = ?1",
                     quoteIdentifier(TransactionalSinkTask::kOffsetsTable));
}

std::string SqliteDialect::upsertOffset() {
  return fmt::format(
      "INSERT INTO {} (\"connector\", \"topic\", \"partition\", \"next_offset\") "
      "VALUES (?1, ?2, ?3, ?4) ON CONFLICT (\"connector\", \"topic\", \"partition\") "
      "DO UPDATE SET \"next_offset\" = excluded.\"next_offset\"",
      quoteIdentifier(TransactionalSinkTask::kOffsetsTable));
}

}  // namespace ksink::sqlite
