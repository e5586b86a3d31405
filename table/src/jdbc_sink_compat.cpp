#include "jdbc_sink_compat.h"

#include <fmt/format.h>

namespace ksink::detail {
namespace {

using Type = ConfigDef::Type;
using Importance = ConfigDef::Importance;

// Tuning keys: what ksink does in their place.
constexpr ConfigDef::IgnoredKey kIgnored[] = {
    {"max.retries",
     "retriable errors are retried as the worker retries put() (errors.retry.timeout)"},
    {"trim.sensitive.log",
     "not implemented: database errors are logged as the server words them (they may quote a "
     "value)"},
    {"mssql.use.merge.holdlock", "ksink has no SQL Server sink"},
};

}  // namespace

void defineJdbcSinkCompatKeys(ConfigDef& def) {
  def.define("quote.sql.identifiers", Type::kString, "always", Importance::kLow,
             "Confluent JDBC sink key: ksink always quotes identifiers",
             ConfigDef::supportedOnly({"always"}, "ksink always quotes identifiers"))
      .define("table.types", Type::kList, "TABLE", Importance::kLow,
              "Confluent JDBC sink key: ksink writes into tables (PostgreSQL partitioned tables "
              "included), not views",
              ConfigDef::supportedOnly({"TABLE", "PARTITIONED_TABLE"},
                                       "ksink writes into tables, not views"))
      .define("dialect.name", Type::kString, "", Importance::kLow,
              "Confluent JDBC sink key: the dialect follows connection.url",
              ConfigDef::supportedOnly(
                  {"", "PostgreSqlDatabaseDialect", "SqliteDatabaseDialect"},
                  "ksink's sinks are PostgreSQL and SQLite, chosen by connection.url"))
      .define("timestamp.fields.list", Type::kList, "", Importance::kLow,
              "Confluent JDBC sink key: not implemented",
              ConfigDef::supportedOnly(
                  {},
                  "ksink does not convert fields to timestamps by name; declare them "
                  "Timestamp in the record schema"))
      .define("timestamp.precision.mode", Type::kString, "microseconds", Importance::kLow,
              "Confluent JDBC sink key: ksink keeps microseconds",
              ConfigDef::supportedOnly({"microseconds"},
                                       "ksink writes timestamps with microsecond precision"))
      .define("date.timezone", Type::kString, "DB_TIMEZONE", Importance::kLow,
              "Confluent JDBC sink key: only its default is implemented",
              ConfigDef::supportedOnly({"DB_TIMEZONE"},
                                       "not implemented in ksink (db.timezone applies)"))
      .define("table.name.normalize", Type::kBoolean, "false", Importance::kLow,
              "Aiven JDBC sink key: not implemented",
              ConfigDef::supportedOnly(
                  {"false"}, "not implemented in ksink; table.name.format names the table"))
      .define("topics.to.tables.mapping", Type::kString, "", Importance::kLow,
              "Aiven JDBC sink key: not implemented",
              ConfigDef::supportedOnly({}, "not implemented in ksink; use table.name.format"));
  def.defineIgnored(kIgnored, "Confluent JDBC sink tuning");
}

}  // namespace ksink::detail
