// PgTypes: PostgreSQL type OIDs the sink encodes natively, and the column type the sink declares
// for a Connect schema when it creates a table (auto.create) or adds a column (auto.evolve).
//
// OIDs are fixed for built-in types (src/include/catalog/pg_type.dat), so no lookup is needed.
#pragma once

#include <cstdint>
#include <string>

#include "ksink/schema.h"

namespace ksink::postgres {

struct PgTypes {
  static constexpr uint32_t kBool = 16;
  static constexpr uint32_t kBytea = 17;
  static constexpr uint32_t kName = 19;
  static constexpr uint32_t kInt8 = 20;
  static constexpr uint32_t kInt2 = 21;
  static constexpr uint32_t kInt4 = 23;
  static constexpr uint32_t kText = 25;
  static constexpr uint32_t kJson = 114;
  static constexpr uint32_t kXml = 142;
  static constexpr uint32_t kFloat4 = 700;
  static constexpr uint32_t kFloat8 = 701;
  static constexpr uint32_t kBpchar = 1042;
  static constexpr uint32_t kVarchar = 1043;
  static constexpr uint32_t kDate = 1082;
  static constexpr uint32_t kTime = 1083;
  static constexpr uint32_t kTimestamp = 1114;
  static constexpr uint32_t kTimestamptz = 1184;
  static constexpr uint32_t kTimetz = 1266;
  static constexpr uint32_t kBit = 1560;
  static constexpr uint32_t kVarbit = 1562;
  static constexpr uint32_t kNumeric = 1700;
  static constexpr uint32_t kUuid = 2950;
  static constexpr uint32_t kJsonb = 3802;

  // The SQL type for a column holding values of `schema`: smallint, integer, bigint, real,
  // double precision, boolean, text, bytea, numeric (Decimal), date, time, timestamptz
  // (Timestamp: an instant), <element>[] for arrays of primitives, jsonb for maps, structs and
  // other arrays. Debezium's logical types get the type of the source column they come from:
  // date, time (Time, MicroTime, NanoTime), timestamp without time zone (Timestamp,
  // MicroTimestamp, NanoTimestamp: wall-clock values), timestamptz (ZonedTimestamp), timetz
  // (ZonedTime), uuid, jsonb (Json), xml, text (Enum, EnumSet), bit varying (Bits) and numeric
  // (VariableScaleDecimal, also as an array's element).
  static std::string columnType(const Schema& schema);

  // Whether values of `schema` bound for a column of `column_oid` are instants the server must
  // turn into wall time in the session's zone (db.timezone other than UTC: `timestamps_via_zone`)
  // — true for `timestamp` columns, except for Debezium's Timestamp, MicroTimestamp and
  // NanoTimestamp, which already are wall-clock values and go in unchanged.
  static bool convertedViaZone(uint32_t column_oid, const Schema& schema, bool timestamps_via_zone);
};

}  // namespace ksink::postgres
