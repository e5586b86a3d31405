#include "ksink/postgres/register_postgres_sink.h"

#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "ksink/postgres/postgres_sink_task.h"
#include "ksink/table_sink_config.h"
#include "pg_connection_url.h"
#include "postgres_offsets_alter.h"

namespace ksink {

void registerPostgresSink(SinkRegistry& registry) {
  registry.add({"postgres", [] { return std::make_unique<postgres::PostgresSinkTask>(); },
                postgres::PostgresSinkTask::configDef(),
                "PostgreSQL tables, exactly once (COPY; insert, upsert, update; Confluent JDBC "
                "sink configuration)",
                postgres::alterPostgresOffsets});
  // The same sink configured as the Debezium JDBC sink, reading change events natively.
  registry.add({"debezium-postgres", [] { return std::make_unique<postgres::PostgresSinkTask>(); },
                postgres::PostgresSinkTask::configDef(),
                "PostgreSQL tables from Debezium change events (Debezium JDBC sink configuration)",
                postgres::alterPostgresOffsets, TableSinkConfig::fromDebeziumJdbcSink});
  // Confluent's and Debezium's JDBC sink classes, for the connection URLs this sink can open.
  const auto isPostgresUrl = [](const std::map<std::string, std::string>& config) {
    auto url = config.find("connection.url");
    if (url == config.end()) return false;
    try {
      postgres::PgConnectionUrl{url->second};
      return true;
    } catch (const std::invalid_argument&) {
      return false;
    }
  };
  registry.claim("io.confluent.connect.jdbc.JdbcSinkConnector", "postgres", isPostgresUrl);
  registry.claim("io.debezium.connector.jdbc.JdbcSinkConnector", "debezium-postgres",
                 isPostgresUrl);
}

}  // namespace ksink
