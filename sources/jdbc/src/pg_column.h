// PgColumn: one column of a PostgreSQL result as the source reads it — its Connect schema, from
// the column's type OID and modifier, and its values from PostgreSQL's text output (the session
// runs with DateStyle ISO, TimeZone UTC, extra_float_digits 3 and bytea_output hex):
//   boolean → boolean; smallint, integer, bigint, oid → int16, int32, int64, int64;
//   real, double precision → float32, float64 (NaN and infinities kept);
//   numeric(p,s) → Connect Decimal with scale s; numeric without a scale → Debezium's
//     VariableScaleDecimal (each value keeps its own scale: nothing rounded);
//   text, varchar, char, name → string; bytea → bytes;
//   date → Date; time → Time (ms); timestamp, timestamptz → Timestamp (ms; the offset keeps
//     the microseconds);
//   uuid, json/jsonb, xml → string named io.debezium.data.Uuid / Json / Xml (plain strings to a
//     consumer; the sinks recreate the column's type from the name);
//   one-dimensional arrays of the types above → arrays of optional elements;
//   any other type → its text, as a string.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "ksink/schema.h"
#include "ksink/value.h"

namespace ksink::jdbc {

class PgColumn {
 public:
  PgColumn(std::string name, uint32_t oid, int fmod, bool optional);

  const std::string& name() const { return name_; }
  uint32_t oid() const { return oid_; }
  const std::shared_ptr<const Schema>& schema() const { return schema_; }
  // The value of `text` (nullptr: SQL NULL). Throws std::invalid_argument naming the column for
  // a value its schema cannot hold (a numeric NaN, an infinite date).
  Value read(const char* text, size_t length) const;

 private:
  Value readScalar(uint32_t oid, std::string_view text) const;
  Value readArray(std::string_view text) const;

  std::string name_;
  uint32_t oid_;
  uint32_t element_oid_ = 0;  // arrays
  int32_t scale_ = -1;        // numeric(p,s): s; -1: no scale (VariableScaleDecimal)
  std::shared_ptr<const Schema> schema_;
};

}  // namespace ksink::jdbc
