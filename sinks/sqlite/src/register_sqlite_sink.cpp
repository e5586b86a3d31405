#include "ksink/sqlite/register_sqlite_sink.h"

#include <memory>

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
}

}  // namespace ksink
