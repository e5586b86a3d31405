// The table sources: Confluent's JDBC source for PostgreSQL (`postgres-source`) and SQLite
// (`sqlite-source`), each also claiming io.confluent.connect.jdbc.JdbcSourceConnector for the
// connection.url forms it opens.
#pragma once

#include "ksink/connector_registry.h"

namespace ksink {

void registerJdbcSources(ConnectorRegistry& registry);

}  // namespace ksink
