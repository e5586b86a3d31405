#include "ksink/sqlite/register_sqlite_sink.h"

#include <map>
#include <memory>
#include <string>

#include "ksink/sqlite/sqlite_sink_task.h"
#include "sqlite_offsets_alter.h"

namespace ksink {

void registerSqliteSink(SinkRegistry& registry) {
  registry.add({"sqlite", [] { return std::make_unique<sqlite::SqliteSinkTask>(); },
                sqlite::SqliteSinkTask::configDef(),
                "SQLite tables in a local file, exactly once (insert, upsert, update; Confluent "
                "JDBC sink configuration)",
                sqlite::alterSqliteOffsets},
               {"SqliteSink"});
  // Confluent's JDBC sink class, for SQLite connection URLs.
  registry.claim("io.confluent.connect.jdbc.JdbcSinkConnector", "sqlite",
                 [](const std::map<std::string, std::string>& config) {
                   auto url = config.find("connection.url");
                   return url != config.end() && (url->second.starts_with("jdbc:sqlite:") ||
                                                  url->second.starts_with("sqlite:"));
                 });
}

}  // namespace ksink
