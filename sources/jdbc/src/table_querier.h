// TableQuerier: one table (or the query of query mode) read as the JDBC source reads it — a query
// every poll.interval.ms from the last offset, its rows returned batch.max.rows at a time as
// records until the result is exhausted — with the offset each record carries:
//   incrementing: the row's value; timestamp+incrementing: both (a total order, so a restart
//   resumes exactly after the row);
//   timestamp: the row's timestamp only once the row after it has a later one (or the result
//   ended): until then the record carries the offset before, so rows that share a timestamp are
//   never lost across a restart — at worst some are read again (the JDBC source's fix in its
//   PR #1093);
//   bulk: none.
// Commit horizon (PostgreSQL, commit.horizon=wait, every mode but bulk): a query reads only up
// to the newest horizon that has settled — every transaction open when it was taken has ended —
// so a row whose transaction commits after a later row was read is not skipped: the querier takes
// a horizon at each query and reads up to it once it settled (at once when no other transaction
// was open; else at a later query). A transaction left open holds reading back: warned each
// minute, naming its session.
// Records: topic = topic.prefix + table name (query mode: the prefix); value = a struct of the
// row's columns (named after the table), NULL-able columns optional; key = a struct of the
// primary key's columns, or none.
// A failed query (DbError) leaves the querier as before it: the next query starts after the last
// record returned. Single-threaded.
#pragma once

#include <chrono>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "jdbc_offset.h"
#include "jdbc_source_config.h"
#include "ksink/source_record.h"
#include "source_database.h"

namespace ksink::jdbc {

class TableQuerier {
 public:
  using Clock = std::chrono::steady_clock;

  // `table` nullopt: query mode. `start`: the stored offset (or the mode's beginning).
  TableQuerier(const JdbcSourceConfig& config, std::optional<TableRef> table, TableInfo info,
               std::string incrementing_column, JdbcOffset start);

  // Whether a query is open (rows are waiting) or poll.interval.ms has passed since the last.
  bool due(Clock::time_point now) const;
  Clock::time_point nextDue() const { return last_query_ + config_.poll_interval; }
  bool reading() const { return cursor_ != nullptr || !buffer_.empty(); }
  // Up to batch.max.rows records: runs the query when none is open. Throws DbError (after
  // reset()).
  std::vector<SourceRecord> poll(SourceDatabase& db, Clock::time_point now);
  // Forgets the open query (its connection was lost): the next starts after the last record.
  void reset();

  const std::optional<TableRef>& table() const { return table_; }
  const JdbcOffset& offset() const { return offset_; }

 private:
  // False when there is nothing to read yet (no settled horizon).
  bool open(SourceDatabase& db, Clock::time_point now);
  // The newest settled horizon, after taking a new one; nullopt while none has settled.
  std::optional<Horizon> settledHorizon(SourceDatabase& db, Clock::time_point now);
  void buildSchemas();
  SourceRecord record(FetchedRow& row, const JdbcOffset& offset) const;

  const JdbcSourceConfig& config_;
  std::optional<TableRef> table_;
  TableInfo info_;
  std::string incrementing_column_;
  std::string topic_;
  SourceMap partition_;
  JdbcOffset offset_;  // what the last record returned carries: where a new query starts
  std::unique_ptr<RowCursor> cursor_;
  std::deque<FetchedRow> buffer_;  // fetched, not returned (timestamp mode's look-ahead)
  bool exhausted_ = false;
  Clock::time_point last_query_{};
  std::shared_ptr<const Schema> value_schema_;
  std::shared_ptr<const Schema> key_schema_;
  std::vector<size_t> key_columns_;  // result columns of the key, in its order
  struct PendingHorizon {
    Horizon horizon;
    Clock::time_point taken;
  };
  std::vector<PendingHorizon> horizons_;  // taken, not settled yet, oldest first
  Clock::time_point last_warning_{};
};

}  // namespace ksink::jdbc
