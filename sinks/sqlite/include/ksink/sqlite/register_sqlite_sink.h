// registerSqliteSink: adds the SQLite sink to a registry under the name `sqlite` (and
// `SqliteSink`). Call it before runCli(), from the main thread.
#pragma once

#include "ksink/sink_registry.h"

namespace ksink {

void registerSqliteSink(SinkRegistry& registry);

}  // namespace ksink
