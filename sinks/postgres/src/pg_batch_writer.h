// PgBatchWriter: the PostgreSQL sink's general write path, for every batch the stream path
// (PgStreamWriter) does not take: converted rows are mapped to their tables (created / evolved as
// TablePolicy decides), grouped into segments of one table and operation each written by one COPY
// (PgRowWriter), and committed with the offsets' compare-and-set in one transaction. When the
// server rejects the data, the transaction is redone under savepoints, halving the rows down to
// the bad record, which is reported.
//
// Asks of its task only through the batch's BatchScope (reporting, the DLQ wait before COMMIT, the
// offsets' compare-and-set). Throws PgError for database failures, which the destination
// classifies.
// Single-threaded: the task's thread.
#pragma once

#include <map>
#include <span>
#include <vector>

#include "ksink/pg/pg_connection.h"
#include "ksink/record_mapper.h"
#include "ksink/transactional_destination.h"
#include "pg_row_writer.h"
#include "pg_table_cache.h"
#include "postgres_sink_config.h"

namespace ksink::postgres {

class PgBatchWriter {
 public:
  PgBatchWriter(const PostgresSinkConfig& config, PgTableCache& tables, PgRowWriter& writer)
      : config_(config), tables_(tables), writer_(writer) {}

  // Writes `batch` (its failures already reported) and stores the batch's offsets in one
  // transaction; false when fenced (rolled back).
  bool write(PgConnection& connection, const RecordMapper::Batch& batch, BatchScope& scope);

 private:
  using Row = RecordMapper::Row;
  using Layout = RecordMapper::Layout;

  std::vector<const Row*> prepare(PgConnection& connection, const RecordMapper::Batch& batch,
                                  BatchScope& scope);
  std::vector<PgRowWriter::Segment> segmentsOf(std::span<const Row* const> rows) const;
  void writeRows(PgConnection& connection, std::span<const Row* const> rows);
  void writeSegments(PgConnection& connection, std::span<const PgRowWriter::Segment> segments);
  void isolate(PgConnection& connection, std::span<const Row* const> rows, BatchScope& scope);
  bool transaction(PgConnection& connection, std::span<const Row* const> rows, BatchScope& scope,
                   bool isolating);

  const PostgresSinkConfig& config_;
  PgTableCache& tables_;
  PgRowWriter& writer_;
  // The table of each layout of the batch being written (valid during one write()).
  std::map<const Layout*, const PgTable*> batch_tables_;
};

}  // namespace ksink::postgres
