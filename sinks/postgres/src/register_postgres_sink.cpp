#include "ksink/postgres/register_postgres_sink.h"

#include "ksink/pg/pg_connection_url.h"
#include "ksink/postgres/postgres_sink_task.h"
#include "ksink/table_sink_registration.h"
#include "postgres_offsets_alter.h"

namespace ksink {

void registerPostgresSink(ConnectorRegistry& registry) {
  auto sink = TableSinkRegistration::of<postgres::PostgresSinkTask>(
      "postgres", "PostgreSQL tables",
      ", exactly once (COPY; insert, upsert, update; Confluent JDBC sink configuration)");
  sink.alter_offsets = postgres::alterPostgresOffsets;
  sink.opens_url = postgres::PgConnectionUrl::accepts;
  sink.url_forms =
      "PostgreSQL (jdbc:postgresql://…, postgresql://… or postgres://…, a libpq conninfo)";
  sink.registerIn(registry);
}

}  // namespace ksink
