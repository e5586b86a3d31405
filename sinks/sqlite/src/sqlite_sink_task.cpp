#include "ksink/sqlite/sqlite_sink_task.h"

#include "ksink/sqlite_db/sqlite_url.h"
#include "sqlite_destination.h"
#include "sqlite_sink_config.h"

namespace ksink::sqlite {

std::string SqliteSinkTask::version() const {
  return KSINK_SQLITE_VERSION;
}

std::string SqliteSinkTask::pathFromUrl(const std::string& url) {
  return sqlite::pathFromUrl(url);
}

const ConfigDef& SqliteSinkTask::configDef() {
  return SqliteSinkConfig::configDef();
}

std::unique_ptr<TransactionalDestination> SqliteSinkTask::openDestination(const Config& config) {
  return SqliteDestination::open(config);
}

}  // namespace ksink::sqlite
