#include "ksink/sqlite/register_sqlite_sink.h"

#include <map>
#include <memory>
#include <string>

#include "ksink/sqlite/sqlite_sink_task.h"
#include "ksink/table_sink_config.h"
#include "sqlite_offsets_alter.h"

namespace ksink {

void registerSqliteSink(SinkRegistry& registry) {
  registry.add({"sqlite", [] { return std::make_unique<sqlite::SqliteSinkTask>(); },
                sqlite::SqliteSinkTask::configDef(),
                "SQLite tables in a local file, exactly once (insert, upsert, update; Confluent "
                "JDBC sink configuration)",
                sqlite::alterSqliteOffsets},
               {"SqliteSink"});
  // The same sink configured as the Debezium JDBC sink, reading change events natively.
  registry.add({"debezium-sqlite", [] { return std::make_unique<sqlite::SqliteSinkTask>(); },
                sqlite::SqliteSinkTask::configDef(),
                "SQLite tables from Debezium change events (Debezium JDBC sink configuration)",
                sqlite::alterSqliteOffsets, TableSinkConfig::fromDebeziumJdbcSink});
  // Confluent's and Debezium's JDBC sink classes, for SQLite connection URLs.
  const auto isSqliteUrl = [](const std::map<std::string, std::string>& config) {
    auto url = config.find("connection.url");
    return url != config.end() &&
           (url->second.starts_with("jdbc:sqlite:") || url->second.starts_with("sqlite:"));
  };
  registry.claim("io.confluent.connect.jdbc.JdbcSinkConnector", "sqlite", isSqliteUrl);
  registry.claim("io.debezium.connector.jdbc.JdbcSinkConnector", "debezium-sqlite", isSqliteUrl);
}

}  // namespace ksink
