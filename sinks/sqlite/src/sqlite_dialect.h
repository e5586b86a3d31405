// SqliteDialect: the SQL text the SQLite sink runs — identifiers always quoted, Connect types
// mapped to SQLite's declared types, and the statements per insert mode. Pure functions, so the
// generated SQL is unit-tested without a database.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ksink/db/sql_identifier.h"
#include "ksink/record_mapper.h"
#include "ksink/schema.h"
#include "ksink/table_sink_config.h"

namespace ksink::sqlite {

class SqliteDialect {
 public:
  // SQLite's type affinities (https://sqlite.org/datatype3.html §3.1).
  enum class Affinity { kInteger, kReal, kNumeric, kText, kBlob };

  // INTEGER (ints, boolean), REAL (floats), TEXT (strings, Date/Time/Timestamp as ISO-8601 text,
  // arrays, maps and structs as JSON), BLOB (bytes), NUMERIC (Decimal).
  static std::string_view columnType(const Schema& schema);
  // The affinity SQLite gives a column declared as `declared_type`.
  static Affinity affinity(std::string_view declared_type);

  static std::string createTable(const RecordMapper::Layout& layout);
  static std::string addColumn(std::string_view table, const RecordMapper::Column& column);
  // The statement writing one row of `layout`, with a `?` per column in layout order (for
  // update: value columns first, then key columns; for delete: key columns). Empty when the mode
  // has nothing to do for the layout (update of a key-only row).
  // `rows` > 1 (insert and upsert only): one statement for that many rows, `?`s row after row —
  // SQLite runs a multi-row VALUES much faster than the same rows one statement each.
  static std::string write(const RecordMapper::Layout& layout, TableSinkConfig::InsertMode mode,
                           size_t rows = 1);
  static std::string remove(const RecordMapper::Layout& layout);

  static std::string createOffsetsTable();
  // The sink's compare-and-set on ksink_offsets: ?1 connector, ?2 topic, ?3 partition, ?4 new
  // next_offset, ?5 expected next_offset (selectOffset: ?1..?3; insertOffsetIfAbsent: ?1..?4).
  static std::string selectOffset();
  static std::string compareAndSetOffset();
  static std::string insertOffsetIfAbsent();
  // name, declared type of every column of table ?1.
  static std::string tableInfo();
  // Empties `table` (a truncate event).
  static std::string truncate(std::string_view table);
  static std::string journalModeWal();
  static std::string synchronous(std::string_view mode);  // OFF, NORMAL, FULL or EXTRA
  // For `ksink offsets` on a stopped connector (KIP-875's alterOffsets), no compare-and-set:
  // one row when the offsets table exists; delete every row of connector ?1; set the row
  // (?1 connector, ?2 topic, ?3 partition) to next offset ?4, whatever it held.
  static std::string offsetsTableExists();
  static std::string deleteOffsets();
  static std::string upsertOffset();
};

}  // namespace ksink::sqlite
