// SqliteColumn: one column of a SQLite result as the source reads it. SQLite types values, not
// columns, so the Connect schema comes from the column's declared type (as the JDBC driver reads
// it), by the words in it:
//   BOOLEAN, BOOL → boolean; TINYINT → int8; SMALLINT, INT2 → int16; MEDIUMINT → int32; any
//   other with INT (INTEGER, BIGINT) → int64 (SQLite's integers are 64-bit);
//   REAL, FLOAT, DOUBLE → float64; DECIMAL(p,s), NUMERIC(p,s) → Connect Decimal with scale s,
//   without a scale → Debezium's VariableScaleDecimal (the value's own digits);
//   DATE → Date, DATETIME, TIMESTAMP → Timestamp, TIME → Time (ISO-8601 text, read as UTC);
//   BLOB → bytes; UUID, JSON → named strings as PostgreSQL's; anything else (TEXT, CHAR, CLOB,
//   none) → string; text that is not valid UTF-8 (SQLite does not check) as Java decodes it, each
//   malformed sequence one U+FFFD (ksink/utf8.h).
// A value stored in another class than its column's (text in an INTEGER column) is converted
// when it can be, else it is an error naming the column.
#pragma once

#include <memory>
#include <string>

#include "ksink/schema.h"
#include "ksink/value.h"

namespace SQLite {
class Column;
}

namespace ksink::jdbc {

class SqliteColumn {
 public:
  SqliteColumn(std::string name, const std::string& declared_type, bool optional);

  const std::string& name() const { return name_; }
  const std::shared_ptr<const Schema>& schema() const { return schema_; }
  Value read(const SQLite::Column& column) const;

 private:
  std::string name_;
  std::shared_ptr<const Schema> schema_;
  Schema::Logical logical_ = Schema::Logical::kNone;
  int32_t scale_ = -1;
};

}  // namespace ksink::jdbc
