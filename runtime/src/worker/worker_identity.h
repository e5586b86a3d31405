// How a `ksink run` process names itself to the others of its cluster (the status topic's
// worker_id, where a task restart is forwarded): Connect's advertised URL's host:port —
// rest.advertised.host.name and rest.advertised.port when set, else the listener's as bound, with
// the machine's host name for a wildcard address (0.0.0.0, ::), which names no one. A process
// without a listener is `<host name>#<pid>` (no other process can reach it).
#pragma once

#include <map>
#include <string>

namespace ksink {

// `bound`: the listener's host:port as bound; empty when there is none.
std::string workerIdentity(const std::map<std::string, std::string>& worker,
                           const std::string& bound);

}  // namespace ksink
