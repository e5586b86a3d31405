#include "pg_stream_writer.h"

#include <spdlog/spdlog.h>

#include <memory>
#include <optional>
#include <unordered_set>
#include <utility>

#include "ksink/pg/pg_error.h"
#include "pg_copy_stream.h"
#include "pg_sql.h"
#include "pg_transaction.h"

namespace ksink::postgres {
namespace {

using InsertMode = TableSinkConfig::InsertMode;

}  // namespace

PgStreamWriter::Outcome PgStreamWriter::write(PgConnection& connection,
                                              std::span<const SinkRecord> records,
                                              BatchScope& scope, bool pipelined,
                                              RecordMapper::Mapped& mapped) {
  const bool upsert = config_.table.insert_mode == InsertMode::kUpsert;
  PgTransaction tx(connection);
  if (pipelined && !scope.storeOffsets()) return Outcome::kFenced;  // rolls back
  std::optional<PgCopyStream> stream;
  std::shared_ptr<const RecordMapper::Layout> layout;
  std::unordered_set<size_t> keys;  // upsert: a key hash seen twice sends the batch to reduction
  mapped.rows.reserve(records.size());
  size_t next_mapped = 0;  // the first of `mapped.rows` not yet met again (a second write())
  try {
    for (size_t i = 0; i < records.size(); ++i) {
      const auto& record = records[i];
      const RecordMapper::Row* row = nullptr;
      if (i < mapped.records) {  // converted by an earlier write() of this batch
        if (next_mapped == mapped.rows.size() || mapped.rows[next_mapped].record != &record)
          continue;  // a tombstone skipped
        row = &mapped.rows[next_mapped++];
      } else {
        std::optional<RecordMapper::Row> converted;
        try {
          converted = mapper_.map(record);
        } catch (const std::exception&) {
          return Outcome::kGaveUp;  // a bad or unconvertible record: the general path decides
        }
        mapped.records = i + 1;
        if (!converted) continue;  // a tombstone skipped (delete.enabled=false)
        mapped.rows.push_back(std::move(*converted));
        next_mapped = mapped.rows.size();
        row = &mapped.rows.back();
      }
      if (row->is_delete || row->is_truncate) return Outcome::kGaveUp;
      if (upsert &&
          (row->layout->key_count == 0 || !keys.insert(RecordMapper::keyHash(*row)).second))
        return Outcome::kGaveUp;
      // A row of another layout that encodes alike (schemaless JSON) continues the COPY.
      if (!stream || (layout != row->layout && !stream->accepts(*row->layout))) {
        if (stream && pipelined) return upsert ? Outcome::kGaveUp : Outcome::kSecondTable;
        if (stream) stream->finish(connection);  // before any other statement
        const PgTable* table = tables_.ready(connection, *row->layout);
        if (!table) return Outcome::kGaveUp;
        layout = row->layout;  // held, so the pointer stays unique while compared
        stream.emplace(*table, *row->layout, row->layout->columns.size(),
                       config_.db_timezone != "UTC");
        // A server-side conversion (db.timezone) needs the staged path.
        if (stream->columns().empty() || writer_.needsStaging(*table, *row->layout))
          return Outcome::kGaveUp;
        stream->begin(connection, table->id.quoted(), pipelined ? PgSql::commit() : "");
      }
      if (!stream->add(*row)) return Outcome::kGaveUp;
      stream->flush(connection);
    }
    if (stream && pipelined) {
      stream->finishLater(connection);
      tx.commitSent();
      pending_records_ = records.size();
      pending_table_ = stream->target();
      return Outcome::kPending;
    }
    if (stream) stream->finish(connection);
  } catch (const PgError& e) {
    if (e.kind() != PgError::Kind::kBadData) throw;
    // A key the table has (upsert), or a bad record: the general path stages or isolates.
    if (upsert && stream && e.sqlstate() == "23505")
      writer_.straightUpsertDone(stream->target(), false);
    return Outcome::kGaveUp;
  }
  if (!pipelined && !scope.storeOffsets()) return Outcome::kFenced;
  tx.commit();
  return Outcome::kCommitted;
}

bool PgStreamWriter::streamable(std::span<const SinkRecord> records) const {
  switch (config_.table.insert_mode) {
    case InsertMode::kInsert:
      return true;
    case InsertMode::kUpsert:
      return writer_.upsertsLikelyNew(
          tables_.tableId(config_.table.tableName(records.front().topic())).quoted());
    default:
      return false;
  }
}

bool PgStreamWriter::awaitOutcome(PgConnection& connection, bool& reconnect) {
  const size_t records = std::exchange(pending_records_, 0);
  if (records == 0) return false;
  const bool upsert = config_.table.insert_mode == InsertMode::kUpsert;
  try {
    connection.collectResults();
    if (upsert) writer_.straightUpsertDone(pending_table_, true);
    return true;
  } catch (const PgError& e) {
    // The failed COPY or COMMIT left the transaction aborted, or the session is gone.
    if (connection.ok()) {
      try {
        connection.exec(PgSql::rollback());
      } catch (const PgError&) {
        reconnect = true;
      }
    }
    if (upsert && e.sqlstate() == "23505") writer_.straightUpsertDone(pending_table_, false);
    throw;
  }
}

void PgStreamWriter::finishPending(PgConnection& connection) {
  if (std::exchange(pending_records_, 0) == 0) return;
  try {
    connection.collectResults();
  } catch (const PgError& e) {
    spdlog::warn("the last batch did not commit before the task stopped: {}", e.what());
  }
}

}  // namespace ksink::postgres
