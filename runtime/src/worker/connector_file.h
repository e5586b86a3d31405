// A connector's .properties file as the CLI reads it: the worker's keys under the connector's,
// references resolved, the class found in the registry (by connection.url for the JDBC classes),
// and every problem of its keys at once (ConfigException). One per connector file of `run`,
// `validate` and `offsets`.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "ksink/config.h"
#include "ksink/connector_registry.h"
#include "ksink/worker.h"
#include "listener_security.h"

namespace ksink {

struct ConnectorFile {
  std::string file;  // where it came from: a path, or "the REST API"
  Config config;
  // The connector's own properties as submitted: references unresolved, no worker key merged.
  std::map<std::string, std::string> submitted;
  // Exactly one of the two.
  const ConnectorRegistry::SinkEntry* sink = nullptr;
  const ConnectorRegistry::SourceEntry* source = nullptr;
  std::vector<std::string> warnings;  // keys ksink knows nothing of, ignored

  const std::string& className() const { return sink ? sink->name : source->name; }
  std::unique_ptr<Worker> makeWorker() const;
  std::chrono::milliseconds gracefulTimeout() const;
};

// The worker file: log level and plugins take effect before any connector is read; the listener
// and its security are checked (listenerSecurity()).
std::map<std::string, std::string> readWorker(const std::string& file);
// The worker's `listeners` (its default when unset; empty: none), and the listener's TLS and users
// (ListenerSecurity); throws ConfigException naming what is refused.
std::string listenerOf(const std::map<std::string, std::string>& worker);
ListenerSecurity listenerSecurity(const std::map<std::string, std::string>& worker);

// Worker properties first, the connector's on top (Connect standalone keeps them apart; one
// merged view is what a task sees here). `worker` is readWorker()'s: its references resolved,
// its config.providers kept, which resolve the connector file's.
ConnectorFile loadConnector(const std::map<std::string, std::string>& worker,
                            const std::string& file);
// The same for a connector's properties as submitted (`own`, references unresolved) from
// `origin` (a file, or the REST API).
ConnectorFile loadConnector(const std::map<std::string, std::string>& worker,
                            const std::map<std::string, std::string>& own,
                            const std::string& origin);

// loadConnector(), then every check a start makes: a Worker made once (its kind's keys checked,
// nothing connected). What `ksink run`, the REST API and its validation take a connector through.
ConnectorFile checkConnector(const std::map<std::string, std::string>& worker,
                             const std::map<std::string, std::string>& own,
                             const std::string& origin);

// The connector files named on the command line: a file as given, a directory's *.properties
// files in name order (a unit's `ksink run /etc/ksink/worker.properties /etc/ksink/connectors.d`:
// systemd expands no globs). Files whose name starts with a dot are left out.
std::vector<std::string> connectorFiles(const std::vector<std::string>& paths);

// Two connectors of one name would share a consumer group (and a sink's stored offsets), each
// taking the other's partitions: Connect refuses the second, and so does ksink.
void requireUniqueName(std::set<std::string>& names, const ConnectorFile& connector);

}  // namespace ksink
