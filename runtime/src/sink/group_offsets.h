// GroupOffsets: the consumer group's committed offsets for a connector's topics, read from the
// broker without joining the group (what `ksink offsets` shows).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ksink/topic_partition.h"
#include "sink_connector_config.h"

namespace ksink {

struct GroupOffsetRow {
  TopicPartition tp;
  std::optional<int64_t> committed;  // nullopt: nothing committed yet
  int64_t end = 0;                   // the partition's high watermark
};

// Throws std::runtime_error when the broker cannot be reached within `timeout_ms`.
std::vector<GroupOffsetRow> readGroupOffsets(const SinkConnectorConfig& settings,
                                             int timeout_ms = 10000);

// KIP-875's offset management, for a stopped connector: these throw std::runtime_error when the
// group still has members (a ksink process, or a zombie one not yet expired) or the broker
// refuses.
// Changes nothing: checks that no member is in the group (a group that does not exist has
// none), so that `ksink offsets` can refuse before it touches the sink's own offsets.
void requireNoGroupMembers(const SinkConnectorConfig& settings, int timeout_ms = 10000);
// Deletes the consumer group: every task restarts from auto.offset.reset (or the sink's own
// stored offsets).
void resetGroupOffsets(const SinkConnectorConfig& settings, int timeout_ms = 10000);
// Sets the committed offsets of these partitions (others keep theirs).
void alterGroupOffsets(const SinkConnectorConfig& settings, const OffsetMap& offsets,
                       int timeout_ms = 10000);

}  // namespace ksink
