// registerPostgresSink: adds the PostgreSQL sink to a registry under the name `postgres`, and
// claims Confluent's JdbcSinkConnector class for the connection URLs it can open (libpq URIs and
// conninfo strings, jdbc:postgresql://). The stock `ksink`
// binary calls it at start-up; a program with its own main() may call it before runCli().
#pragma once

#include "ksink/connector_registry.h"

namespace ksink {

void registerPostgresSink(ConnectorRegistry& registry);

}  // namespace ksink
