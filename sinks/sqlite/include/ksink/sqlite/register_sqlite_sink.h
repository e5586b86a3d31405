// registerSqliteSink: adds the SQLite sink to a registry under the name `sqlite` (and
// `SqliteSink`), and claims Confluent's JdbcSinkConnector class for sqlite: and jdbc:sqlite: URLs.
// Call it before runCli(), from the main thread.
#pragma once

#include "ksink/connector_registry.h"

namespace ksink {

void registerSqliteSink(ConnectorRegistry& registry);

}  // namespace ksink
