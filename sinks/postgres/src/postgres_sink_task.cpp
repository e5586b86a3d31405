#include "ksink/postgres/postgres_sink_task.h"

#include <memory>

#include "pg_destination.h"
#include "postgres_sink_config.h"

namespace ksink::postgres {

std::unique_ptr<TransactionalDestination> PostgresSinkTask::openDestination(const Config& config) {
  auto destination = std::make_unique<PgDestination>(config);
  destination->start(config);
  return destination;
}

std::string PostgresSinkTask::version() const {
  return KSINK_POSTGRES_VERSION;
}

const ConfigDef& PostgresSinkTask::configDef() {
  return PostgresSinkConfig::configDef();
}

}  // namespace ksink::postgres
