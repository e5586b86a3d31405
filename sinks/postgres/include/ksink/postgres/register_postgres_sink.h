// registerPostgresSink: adds the PostgreSQL sink to a registry under the name `postgres` (and
// Confluent's JdbcSinkConnector class name for postgresql connection URLs). The stock `ksink`
// binary calls it at start-up; a program with its own main() may call it before runCli().
#pragma once

#include "ksink/sink_registry.h"

namespace ksink {

void registerPostgresSink(SinkRegistry& registry);

}  // namespace ksink
