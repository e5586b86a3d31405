#include "ksink/sqlite/register_sqlite_sink.h"

#include "ksink/sqlite/sqlite_sink_task.h"
#include "ksink/sqlite_db/sqlite_url.h"
#include "ksink/table_sink_registration.h"
#include "sqlite_offsets_alter.h"
#include "sqlite_sink_config.h"

namespace ksink {

void registerSqliteSink(ConnectorRegistry& registry) {
  auto sink = TableSinkRegistration::of<sqlite::SqliteSinkTask>(
      "sqlite", "SQLite tables",
      " in a local file, exactly once (insert, upsert, update; Confluent JDBC sink configuration)");
  sink.aliases = {"SqliteSink"};
  sink.opens_url = sqlite::isSqliteUrl;
  sink.url_forms = "SQLite (jdbc:sqlite:… or sqlite:…)";
  sink.alter_offsets = sqlite::alterSqliteOffsets;
  sink.registerIn(registry);
}

}  // namespace ksink
