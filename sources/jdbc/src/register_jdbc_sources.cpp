#include "ksink/jdbc/register_jdbc_sources.h"

#include "jdbc_source_config.h"
#include "jdbc_source_task.h"
#include "ksink/source_connector.h"
#include "ksink/sqlite_db/sqlite_url.h"

namespace ksink {
namespace {

constexpr const char* kJdbcSourceClass = "io.confluent.connect.jdbc.JdbcSourceConnector";

std::string urlOf(const std::map<std::string, std::string>& config) {
  auto it = config.find("connection.url");
  return it == config.end() ? std::string() : it->second;
}

}  // namespace

void registerJdbcSources(ConnectorRegistry& registry) {
  auto factory = [] { return std::make_unique<jdbc::JdbcSourceTask>(); };
  addSourceConnector(registry,
                     {"postgres-source", factory, jdbc::JdbcSourceConfig::configDef(),
                      "PostgreSQL tables into Kafka, as Confluent's JDBC source reads them"});
  addSourceConnector(registry, {"sqlite-source", factory, jdbc::JdbcSourceConfig::configDef(),
                                "SQLite tables into Kafka, as Confluent's JDBC source reads them"});
  registry.claim(kJdbcSourceClass, "sqlite-source",
                 [](const auto& config) { return sqlite::isSqliteUrl(urlOf(config)); });
  registry.claim(kJdbcSourceClass, "postgres-source", [](const auto& config) {
    const auto url = urlOf(config);
    return !sqlite::isSqliteUrl(url) && jdbc::JdbcSourceTask::opensPostgres(url);
  });
}

}  // namespace ksink
