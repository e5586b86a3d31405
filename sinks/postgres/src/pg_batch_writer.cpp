#include "pg_batch_writer.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <unordered_set>

#include "ksink/pg/pg_error.h"
#include "ksink/table_policy.h"
#include "pg_sql.h"
#include "pg_transaction.h"

namespace ksink::postgres {
namespace {

using Op = PgRowWriter::Op;
using InsertMode = TableSinkConfig::InsertMode;

constexpr std::string_view kIsolate = "ksink_isolate";  // bad-record isolation's savepoint

}  // namespace

bool PgBatchWriter::write(PgConnection& connection, const RecordMapper::Batch& batch,
                          BatchScope& scope) {
  const auto rows = prepare(connection, batch, scope);
  try {
    return transaction(connection, rows, scope, /*isolating=*/false);
  } catch (const PgError& e) {
    if (e.kind() != PgError::Kind::kBadData) throw;
    spdlog::info("batch of {} rows rejected ({}); isolating the bad record(s)", rows.size(),
                 e.what());
  }
  return transaction(connection, rows, scope, /*isolating=*/true);
}

// Maps every layout to its table (creating / evolving as configured) and reports the rows that
// cannot be written at all; returns the rest, in record order.
std::vector<const PgBatchWriter::Row*> PgBatchWriter::prepare(PgConnection& connection,
                                                              const RecordMapper::Batch& batch,
                                                              BatchScope& scope) {
  batch_tables_.clear();
  std::vector<const Row*> rows;
  rows.reserve(batch.rows.size());
  std::map<const Layout*, std::vector<std::string>> missing;
  for (const auto& row : batch.rows) {
    const Layout* layout = row.layout.get();
    if (row.is_truncate) {  // a table that does not exist has nothing to empty
      const PgTable* table = tables_.find(connection, layout->table);
      batch_tables_[layout] = table;
      if (table) rows.push_back(&row);
      continue;
    }
    auto known = batch_tables_.find(layout);
    if (known == batch_tables_.end()) {
      auto resolved = tables_.resolve(connection, *layout, row.is_delete);
      if (!resolved.missing.empty()) missing[layout] = std::move(resolved.missing);
      known = batch_tables_.emplace(layout, resolved.table).first;
    }
    if (auto m = missing.find(layout); m != missing.end()) {
      const auto refused =
          TablePolicy::missingColumns(tables_.tableId(layout->table).display(), m->second);
      row.forEachRecord([&](const SinkRecord& r) { scope.reportBadRecord(r, refused); });
      continue;
    }
    if (!known->second) continue;  // a delete from a table that does not exist: nothing to do
    rows.push_back(&row);
  }
  // Resolving a later layout may have re-read a table an earlier one resolved to: look every
  // table up again now that the catalog work is done.
  for (auto& [layout, table] : batch_tables_)
    if (table) table = tables_.find(connection, layout->table);
  return rows;
}

// Rows of one layout and operation form a segment, written with one COPY. In insert mode a delete
// must stay between the inserts around it; otherwise rows are reduced to one per key between
// deletes, and a key met again (a write after its delete) starts new segments after every open
// one, so the delete runs first. Truncates go first: the mapper left no row of a truncated table
// before its truncate.
std::vector<PgRowWriter::Segment> PgBatchWriter::segmentsOf(
    std::span<const Row* const> rows) const {
  const auto mode = config_.table.insert_mode;
  const Op write_op = mode == InsertMode::kUpsert   ? Op::kUpsert
                      : mode == InsertMode::kUpdate ? Op::kUpdate
                                                    : Op::kInsert;
  std::vector<PgRowWriter::Segment> segments;
  std::map<std::pair<const Layout*, bool>, size_t> open;
  auto hash = [](const Row* row) { return RecordMapper::keyHash(*row); };
  auto same = [](const Row* a, const Row* b) { return RecordMapper::sameKey(*a, *b); };
  std::unordered_set<const Row*, decltype(hash), decltype(same)> open_keys(rows.size(), hash, same);
  size_t truncates = 0;
  for (const Row* row : rows) {
    if (row->is_truncate) {
      segments.insert(segments.begin() + static_cast<std::ptrdiff_t>(truncates++),
                      {row->layout.get(), Op::kTruncate, {row}});
      for (auto& [_, index] : open) ++index;
      continue;
    }
    const auto key = std::make_pair(row->layout.get(), row->is_delete);
    if (mode == InsertMode::kInsert && row->is_delete) {
      const bool extend = !segments.empty() && segments.back().op == Op::kDelete &&
                          segments.back().layout == row->layout.get();
      if (!extend) {
        open.clear();
        segments.push_back({row->layout.get(), Op::kDelete, {}});
      }
      segments.back().rows.push_back(row);
      continue;
    }
    // A key written twice in one statement: ON CONFLICT refuses it, so the second starts new
    // segments. Inserts need no cut (a second insert of a key fails either way): no hashing.
    if (mode != InsertMode::kInsert && row->layout->key_count > 0 &&
        !open_keys.insert(row).second) {
      open.clear();
      open_keys.clear();
      open_keys.insert(row);
    }
    auto it = open.find(key);
    if (it == open.end()) {
      it = open.emplace(key, segments.size()).first;
      segments.push_back({row->layout.get(), row->is_delete ? Op::kDelete : write_op, {}});
    }
    segments[it->second].rows.push_back(row);
  }
  return segments;
}

void PgBatchWriter::writeRows(PgConnection& connection, std::span<const Row* const> rows) {
  writeSegments(connection, segmentsOf(rows));
}

void PgBatchWriter::writeSegments(PgConnection& connection,
                                  std::span<const PgRowWriter::Segment> segments) {
  for (const auto& segment : segments)
    writer_.write(connection, *batch_tables_.at(segment.layout), segment);
}

// Bad-record isolation: write `rows` under a savepoint; when the server rejects the data, undo
// and retry each half, down to the single record, which is reported.
void PgBatchWriter::isolate(PgConnection& connection, std::span<const Row* const> rows,
                            BatchScope& scope) {
  if (rows.empty()) return;
  connection.exec(PgSql::savepoint(kIsolate));
  try {
    writeRows(connection, rows);
    connection.exec(PgSql::releaseSavepoint(kIsolate));
    return;
  } catch (const PgError& e) {
    if (e.kind() != PgError::Kind::kBadData) throw;
    connection.exec(PgSql::rollbackToSavepoint(kIsolate));
    if (rows.size() == 1) {
      rows.front()->forEachRecord([&](const SinkRecord& r) { scope.reportBadRecord(r, e); });
      return;
    }
  }
  const size_t half = rows.size() / 2;
  isolate(connection, rows.subspan(0, half), scope);
  isolate(connection, rows.subspan(half), scope);
}

// One destination transaction: rows, then the offsets compare-and-set last, so the offsets rows
// stay locked only for the instant before COMMIT.
bool PgBatchWriter::transaction(PgConnection& connection, std::span<const Row* const> rows,
                                BatchScope& scope, bool isolating) {
  // Staging tables are created before BEGIN, so that no rollback (the batch's, or a bad record's
  // savepoint while isolating) takes one away; isolating writes subsets of these segments.
  const auto segments = segmentsOf(rows);
  writer_.boundStaging(connection);
  for (const auto& segment : segments)
    writer_.prepareStaging(connection, *batch_tables_.at(segment.layout), segment);
  PgTransaction tx(connection);
  writer_.beginTransaction();
  if (isolating) {
    // Deferred constraints would otherwise fail only at COMMIT, outside every savepoint.
    connection.exec(PgSql::constraintsImmediate());
    isolate(connection, rows, scope);
  } else {
    writeSegments(connection, segments);
  }
  // The records this transaction skips are in the DLQ first (waited for before the offsets rows
  // are locked).
  scope.awaitReportedRecords();
  if (!scope.storeOffsets()) return false;  // tx rolls back
  tx.commit();
  return true;
}

}  // namespace ksink::postgres
