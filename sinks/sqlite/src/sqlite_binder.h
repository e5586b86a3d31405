// SqliteBinder: how the SQLite sink binds one converted value to a statement parameter — the
// type mapping from Connect's values and logical types to SQLite's storage classes (Date, Time,
// Timestamp and decimals as text, structs and arrays as JSON) — and whether it fits the column's
// declared affinity, so a value that does not is reported as a bad record instead of stored as
// something else. Pure apart from the statement it binds; single-threaded.
#pragma once

#include <SQLiteCpp/Statement.h>

#include <cstdint>
#include <optional>
#include <string>

#include "ksink/schema.h"
#include "ksink/value.h"
#include "sqlite_dialect.h"

namespace ksink::sqlite {

// How one layout column is bound: the logical conversion and the table column's affinity.
struct ColumnBinding {
  Schema::Logical logical = Schema::Logical::kNone;
  int32_t scale = 0;
  std::optional<int64_t> bits_length;  // Debezium's Bits: the "length" parameter
  SqliteDialect::Affinity affinity = SqliteDialect::Affinity::kBlob;
  std::string name;
  std::string declared_type;
};

// Binds `v` as parameter `index`, or returns why it does not fit the column. `scratch` holds text
// made for the value until the statement has run (bound without a copy).
std::optional<std::string> bindValue(SQLite::Statement& st, int index, const Value& v,
                                     const ColumnBinding& c, std::string& scratch);

}  // namespace ksink::sqlite
