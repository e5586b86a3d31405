// alterPostgresOffsets: the PostgreSQL sink's ConnectorRegistry::SinkEntry::alter_offsets
// (KIP-875's SinkConnector.alterOffsets): applies `ksink offsets --set/--reset` to the offsets the
// sink stores in `ksink_offsets` for its connector (`name`), which a task's open() rewinds to.
//
//   reset (nullopt)  DELETE the connector's rows; no table, nothing to forget
//   set              upsert each given (topic, partition) row to its offset, in one transaction;
//                    creates ksink_offsets when it is missing
//
// Connects with the connector's own connection.url / user / password. Throws
// std::runtime_error with the reason; the transaction rolls back, so nothing is half done.
// Only while the connector is stopped (the CLI checks), on the CLI's thread.
#pragma once

#include <optional>

#include "ksink/config.h"
#include "ksink/topic_partition.h"

namespace ksink::postgres {

void alterPostgresOffsets(const Config& config, const std::optional<OffsetMap>& offsets);

}  // namespace ksink::postgres
