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
  void open(SourceDatabase& db, Clock::time_point now);
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
};

}  // namespace ksink::jdbc
