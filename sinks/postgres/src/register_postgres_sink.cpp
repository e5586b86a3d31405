#include "ksink/postgres/register_postgres_sink.h"

#include <memory>

#include "ksink/postgres/postgres_sink_task.h"
#include "postgres_offsets_alter.h"

namespace ksink {

void registerPostgresSink(SinkRegistry& registry) {
  registry.add({"postgres", [] { return std::make_unique<postgres::PostgresSinkTask>(); },
                postgres::PostgresSinkTask::configDef(),
                "PostgreSQL tables, exactly once (COPY; insert, upsert, update; Confluent JDBC "
                "sink configuration)",
                postgres::alterPostgresOffsets});
}

}  // namespace ksink
