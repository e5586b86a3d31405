// What `ksink offsets` does for a source connector, in Kafka Connect's shapes (KIP-875):
// listSourceOffsets is GET /connectors/<name>/offsets, alterSourceOffsets PATCH (set these
// partitions; a null offset resets one) or DELETE (reset every partition of the connector).
//
// A reset writes the entry's tombstone (Connect's own way to forget an offset). Connect requires
// the connector to be stopped; here the file store enforces it (a running process holds the file's
// lock), while on the offsets topic nothing can tell whether a task runs elsewhere: the command
// says so, and a task still running would overwrite the change at its next commit. Called from
// the CLI's thread.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ksink/connector_registry.h"
#include "offset_backing_store.h"

namespace ksink {

// {"offsets":[{"partition":{…},"offset":{…}},…]}, the connector's entries in key order. `store`
// has been started.
std::string listSourceOffsets(const ConnectorRegistry::SourceEntry& source,
                              const std::string& connector, const OffsetBackingStore& store);

// `body`: a PATCH body; nullopt: reset every partition. Returns one line per change, for the
// user. Throws ConfigException for a bad body, std::runtime_error when the store failed.
std::vector<std::string> alterSourceOffsets(const ConnectorRegistry::SourceEntry& source,
                                            const std::string& connector, OffsetBackingStore& store,
                                            const std::optional<std::string>& body,
                                            std::chrono::milliseconds timeout);

}  // namespace ksink
