#include "ksink/postgres/postgres_sink_task.h"

#include <fmt/format.h>

#include <memory>
#include <stdexcept>

#include "ksink/retriable_error.h"
#include "ksink/write_failure.h"
#include "pg_destination.h"
#include "postgres_sink_config.h"

namespace ksink::postgres {

std::unique_ptr<TransactionalDestination> PostgresSinkTask::openDestination(const Config& config) {
  auto destination = std::make_unique<PgDestination>(config);
  try {
    destination->start(config);
  } catch (const WriteError& e) {
    if (e.kind() != WriteFailure::kRetriable) throw;  // the server cannot be reached
    const auto& c = destination->config();
    if (++connect_failures_ >= c.connection_attempts)
      throw std::runtime_error(
          fmt::format("cannot connect to PostgreSQL: {} failed attempts in a row, {} ms apart "
                      "(connection.attempts, connection.backoff.ms); the last: {}",
                      connect_failures_, c.connection_backoff.count(), e.what()));
    context().timeout(c.connection_backoff);
    throw RetriableError(fmt::format("{} (attempt {} of {}; started again in {} ms)", e.what(),
                                     connect_failures_, c.connection_attempts,
                                     c.connection_backoff.count()));
  }
  connect_failures_ = 0;
  return destination;
}

std::string PostgresSinkTask::version() const {
  return KSINK_POSTGRES_VERSION;
}

const ConfigDef& PostgresSinkTask::configDef() {
  return PostgresSinkConfig::configDef();
}

}  // namespace ksink::postgres
