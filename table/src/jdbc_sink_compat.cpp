#include "jdbc_sink_compat.h"

namespace ksink::detail {
namespace {

using Type = ConfigDef::Type;

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
  // Keys of the JDBC sinks that would change what lands in the table: accepted where they ask for
  // what ksink does.
  static const ConfigDef::SupportedOnlyKey kConfluentKeys[] = {
      {"quote.sql.identifiers", Type::kString, {"always"}, "ksink always quotes identifiers"},
      {"table.types",
       Type::kList,
       {"TABLE", "PARTITIONED_TABLE"},
       "ksink writes into tables (PostgreSQL partitioned tables included), not views"},
      {"dialect.name",
       Type::kString,
       {"", "PostgreSqlDatabaseDialect", "SqliteDatabaseDialect"},
       "ksink's sinks are PostgreSQL and SQLite, chosen by connection.url"},
      {"timestamp.fields.list",
       Type::kList,
       {},
       "ksink does not convert fields to timestamps by name; declare them Timestamp in the record "
       "schema"},
      {"timestamp.precision.mode",
       Type::kString,
       {"microseconds"},
       "ksink writes timestamps with microsecond precision"},
      {"date.timezone",
       Type::kString,
       {"DB_TIMEZONE"},
       "not implemented in ksink (db.timezone applies)"},
  };
  static const ConfigDef::SupportedOnlyKey kAivenKeys[] = {
      {"table.name.normalize",
       Type::kBoolean,
       {"false"},
       "not implemented in ksink; table.name.format names the table"},
      {"topics.to.tables.mapping",
       Type::kString,
       {},
       "not implemented in ksink; use table.name.format"},
  };
  def.defineSupportedOnly(kConfluentKeys, "Confluent JDBC sink")
      .defineSupportedOnly(kAivenKeys, "Aiven JDBC sink")
      .defineIgnored(kIgnored, "Confluent JDBC sink tuning");
}

}  // namespace ksink::detail
