// Registering a source connector under a name for `ksink run` (and plugins); running one
// directly with a Worker is ksink/source_worker.h's makeSourceWorker().
//
//   ksink::addSourceConnector(ksink::ConnectorRegistry::global(),
//                             {"my-source", [] { return std::make_unique<MySource>(); },
//                              MySource::configDef()});
//
// The runtime converts each record the task returns with the connector's `key.converter` /
// `value.converter` (Connect's JSON converter with schemas by default), after its `transforms=`
// chain, and stores source offsets in Kafka Connect's format.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ksink/config.h"
#include "ksink/config_def.h"
#include "ksink/connector_registry.h"
#include "ksink/exactly_once_support.h"
#include "ksink/source_task.h"

namespace ksink {

struct SourceConnectorEntry {
  std::string name;
  SourceTaskFactory factory;
  ConfigDef config_def;  // the source's own keys
  std::string description;
  // Whether it delivers exactly once, and whether its tasks define transaction boundaries
  // (Connect's SourceConnector.exactlyOnceSupport / canDefineTransactionBoundaries).
  SourceCapabilities capabilities = {};
};

// The definitions every source connector has on top of the worker's: the converters and the
// transforms chain.
const ConfigDef& sourceConnectorKeys();

// Registers the source under `entry.name` and `aliases` (e.g. a Java connector class name), its
// keys checked with sourceConnectorKeys().
void addSourceConnector(ConnectorRegistry& registry, SourceConnectorEntry entry,
                        const std::vector<std::string>& aliases = {});

}  // namespace ksink
