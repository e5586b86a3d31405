// alterConnectorOffsets: what `ksink offsets --set/--reset` does, in Kafka Connect's order
// (KIP-875's PATCH/DELETE /connectors/<name>/offsets):
//   1. the connector must be stopped: its consumer group has no members; otherwise nothing
//      changes anywhere;
//   2. the sink's own stored offsets (ConnectorRegistry::SinkEntry::alter_offsets, for sinks that
//   have
//      the hook), so that a task's open() does not rewind to the old ones;
//   3. the consumer group's committed offsets.
// A failure at 1 or 2 leaves the group as it was. A failure at 3 after 2 (a member joined in
// between, the broker went away) leaves the sink altered and the group not; the message says so,
// and the same command run again completes it (both steps are idempotent).
//
// ConnectorGroup is the seam between this order and the broker, so a test can check the order
// without one. Called from the CLI's thread only.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ksink/config.h"
#include "ksink/connector_registry.h"
#include "ksink/topic_partition.h"
#include "sink_connector_config.h"

namespace ksink {

// The consumer group operations of KIP-875; each throws std::runtime_error with the reason.
class ConnectorGroup {
 public:
  virtual ~ConnectorGroup() = default;
  virtual std::string id() const = 0;
  virtual void requireNoMembers() = 0;  // changes nothing
  virtual void reset() = 0;             // forgets every committed offset of the group
  virtual void alter(const OffsetMap& offsets) = 0;
};

// The group of `settings` on the broker (group_offsets.h).
std::unique_ptr<ConnectorGroup> brokerGroup(const SinkConnectorConfig& settings);

// `offsets` nullopt: reset; otherwise set these partitions. `config` is the connector's merged,
// validated configuration, handed to the sink's hook. Returns one line per change made, for the
// user. Throws std::runtime_error saying what was and was not changed.
std::vector<std::string> alterConnectorOffsets(const Config& config,
                                               const ConnectorRegistry::SinkEntry& sink,
                                               const std::optional<OffsetMap>& offsets,
                                               ConnectorGroup& group);

}  // namespace ksink
