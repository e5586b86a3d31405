// PgTypes: the type OIDs the sink encodes natively (the database layer's PgTypeOids), and the
// column type the sink declares for a Connect schema when it creates a table (auto.create) or
// adds a column (auto.evolve).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ksink/pg/pg_type_oids.h"
#include "ksink/schema.h"
#include "ksink/table_sink_config.h"

namespace ksink::postgres {

struct PgTypes : PgTypeOids {
  // The SQL type for a column holding values of `schema`: smallint, integer, bigint, real,
  // double precision, boolean, text, bytea, numeric (Decimal), date, time, timestamptz
  // (Timestamp: an instant), <element>[] for arrays of primitives, jsonb for maps, structs and
  // other arrays. Debezium's logical types get the type of the source column they come from:
  // date, time (Time, MicroTime, NanoTime), timestamp without time zone (Timestamp,
  // MicroTimestamp, NanoTimestamp: wall-clock values), timestamptz (ZonedTimestamp), timetz
  // (ZonedTime), uuid, jsonb (Json), xml, text (Enum, EnumSet), bit varying (Bits) and numeric
  // (VariableScaleDecimal, also as an array's element).
  //
  // With Debezium's tables (TableSinkConfig::TableStyle::kDebezium) the types the Debezium JDBC
  // sink declares where they differ: decimal(38, scale) or decimal(min(precision, 38), scale)
  // for a Decimal with connect.decimal.precision (scale 0 where Debezium writes
  // decimal(38,-1), which rounds to tens), time(6), timestamp(6) (Connect's Timestamp too),
  // timestamp(6) / time(6) with time zone (ZonedTimestamp / ZonedTime) and json; ksink keeps
  // numeric for VariableScaleDecimal (Debezium's double precision loses digits) and jsonb for
  // maps and structs (Debezium's hstore needs an extension, and structs it cannot write).
  static std::string columnType(const Schema& schema, TableSinkConfig::TableStyle style =
                                                          TableSinkConfig::TableStyle::kConfluent);

  // The DEFAULT of a column for `schema`'s default value, as an SQL literal PostgreSQL takes for
  // that column type; nullopt when the schema has none, or one of a type no literal is written
  // for (arrays, maps, structs, Debezium's integer times).
  static std::optional<std::string> defaultLiteral(const Schema& schema);

  // Whether values of `schema` bound for a column of `column_oid` are instants the server must
  // turn into wall time in the session's zone (db.timezone other than UTC: `timestamps_via_zone`)
  // — true for `timestamp` columns, except for Debezium's Timestamp, MicroTimestamp and
  // NanoTimestamp, which already are wall-clock values and go in unchanged.
  static bool convertedViaZone(uint32_t column_oid, const Schema& schema, bool timestamps_via_zone);
};

}  // namespace ksink::postgres
