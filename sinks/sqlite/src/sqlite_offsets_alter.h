// alterSqliteOffsets: the SQLite sink's ConnectorRegistry::SinkEntry::alter_offsets (KIP-875's
// SinkConnector.alterOffsets): applies `ksink offsets --set/--reset` to the offsets the sink
// stores in the database file's `ksink_offsets` for its connector (`name`), which a task's
// open() rewinds to.
//
//   reset (nullopt)  DELETE the connector's rows; no file or no table, nothing to forget
//   set              upsert each given (topic, partition) row to its offset, in one
//                    transaction; creates the file and ksink_offsets when they are missing
//
// Opens the file connection.url names (SqliteSinkTask::pathFromUrl), waiting for another
// connection's lock up to sqlite.busy.timeout.ms. Throws std::runtime_error with the reason;
// the transaction rolls back, so nothing is half done. Only while the connector is stopped (the
// CLI checks), on the CLI's thread.
#pragma once

#include <optional>

#include "ksink/config.h"
#include "ksink/topic_partition.h"

namespace ksink::sqlite {

void alterSqliteOffsets(const Config& config, const std::optional<OffsetMap>& offsets);

}  // namespace ksink::sqlite
