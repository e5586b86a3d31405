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

// Each row's offset names it (its incrementing id, with its timestamp): a task that resumes from
// the committed offset reads exactly the rows after it — on PostgreSQL only behind the commit
// horizon (commit.horizon=true, the default), since ids are not committed in their order there
// (SQLite's single writer commits them in order). A bulk read has no offset, and a timestamp alone
// does not tell rows of one timestamp apart.
ExactlyOnceSupport exactlyOnceSupport(const Config& config) {
  try {
    const auto settings = jdbc::JdbcSourceConfig::parse(config);
    const bool in_order = settings.commit_horizon || sqlite::isSqliteUrl(settings.connection_url);
    return settings.usesIncrementing() && in_order ? ExactlyOnceSupport::kSupported
                                                   : ExactlyOnceSupport::kUnsupported;
  } catch (const std::exception&) {
    return ExactlyOnceSupport::kUnsupported;  // the configuration's own errors are reported
  }
}

}  // namespace

void registerJdbcSources(ConnectorRegistry& registry) {
  auto factory = [] { return std::make_unique<jdbc::JdbcSourceTask>(); };
  const SourceCapabilities capabilities{exactlyOnceSupport, nullptr};
  addSourceConnector(
      registry,
      {"postgres-source", factory, jdbc::JdbcSourceConfig::configDef(),
       "PostgreSQL tables into Kafka, as Confluent's JDBC source reads them", capabilities});
  addSourceConnector(
      registry, {"sqlite-source", factory, jdbc::JdbcSourceConfig::configDef(),
                 "SQLite tables into Kafka, as Confluent's JDBC source reads them", capabilities});
  registry.claim(
      kJdbcSourceClass, "sqlite-source",
      [](const auto& config) { return sqlite::isSqliteUrl(urlOf(config)); },
      "SQLite (jdbc:sqlite:… or sqlite:…)");
  registry.claim(
      kJdbcSourceClass, "postgres-source",
      [](const auto& config) {
        const auto url = urlOf(config);
        return !sqlite::isSqliteUrl(url) && jdbc::JdbcSourceTask::opensPostgres(url);
      },
      "PostgreSQL (jdbc:postgresql://…, postgresql://… or postgres://…, a libpq conninfo)");
}

}  // namespace ksink
