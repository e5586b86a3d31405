// ColumnEncoder: writes the values of one destination column into a COPY stream, choosing the
// encoding from the column's PostgreSQL type (what the table holds) and the value's Connect schema
// (what the record carries).
//
// binary() writes PostgreSQL's binary form when there is one for this (type, value) pair — e.g. a
// Connect Timestamp into timestamptz, a string into uuid or jsonb, a Decimal into numeric — and
// returns false, having written nothing useful, when there is none (a string bound for a date
// column, an int64 too large for int4, a uuid in an unusual spelling). The caller then writes the
// whole batch with text(), whose output the server parses as it would a literal, so the server
// remains the only judge of bad values and reports them with its own SQLSTATE.
//
// Integers into timestamp/timestamptz columns are read as epoch milliseconds (Connect's Timestamp
// representation) unless the schema is one of Debezium's Micro/NanoTimestamp. Debezium's
// nanosecond times and timestamps lose their last three digits (PostgreSQL keeps microseconds),
// truncated toward the past in both encodings so binary and text COPY store the same value.
// Immutable after construction; cheap to copy.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "copy_binary_writer.h"
#include "copy_text_writer.h"
#include "ksink/schema.h"
#include "ksink/value.h"

namespace ksink::postgres {

class ColumnEncoder {
 public:
  // `type_oid` / `element_oid` as in PgTable::Column; `schema` may be null (schemaless value).
  ColumnEncoder(uint32_t type_oid, uint32_t element_oid, std::shared_ptr<const Schema> schema);

  [[nodiscard]] bool binary(CopyBinaryWriter& out, const Value& value) const;
  void text(CopyTextWriter& out, const Value& value) const;

 private:
  // The value as the column type's input function reads it; nullopt for null.
  std::optional<std::string> textForm(const Value& value) const;
  ColumnEncoder elementEncoder() const;

  uint32_t type_oid_;
  uint32_t element_oid_;
  std::shared_ptr<const Schema> schema_;
  Schema::Logical logical_;
};

}  // namespace ksink::postgres
