// JdbcSourceTask: Confluent's JDBC source, for PostgreSQL and SQLite — tables (or one query)
// polled into topics with the JDBC source's keys, queries and offsets (TableQuerier), so a
// .properties file and the offsets a Confluent JDBC source left carry over.
//
// Tables: every table the user can read (table.types), narrowed by table.whitelist /
// table.blacklist (a name, schema.name or the qualified name) and schema.pattern, listed again
// every table.poll.interval.ms (new ones are picked up, dropped ones let go). With tasks.max > 1
// each table belongs to one task, by a hash of its qualified name, so a new table never moves
// another; query mode runs in task 0 only.
// Offsets: each table resumes from its protocol-1 partition's stored offset, else from the other
// qualified-name form (schema.table, as JDBC drivers before pgjdbc 42.7.5 named it, or the
// reverse), else from the legacy {"table": name} one, as Confluent's reads them.
// poll() returns the rows of the table being read, batch.max.rows at most; when no table is due
// it waits (until one is, at most a second) and returns nothing; wakeup() ends the wait and
// cancels a running query. A lost connection (or a lock) is a RetriableError: the worker polls
// again after its backoff and the table's query starts again after its last record.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "jdbc_source_config.h"
#include "ksink/source_task.h"
#include "source_database.h"
#include "table_querier.h"

namespace ksink::jdbc {

class JdbcSourceTask final : public SourceTask {
 public:
  using Clock = std::chrono::steady_clock;

  void start(const Config& config) override;
  std::vector<SourceRecord> poll() override;
  void wakeup() override;
  void stop() override;
  std::string version() const override;

  // connection.url names a database this source reads (PostgreSQL or SQLite URL forms).
  static bool opensPostgres(const std::string& url);

 private:
  // Lists the tables again and keeps this task's share (new queriers read their offsets).
  void refreshTables(Clock::time_point now);
  bool mine(const TableRef& table) const;
  bool listed(const TableRef& table) const;
  JdbcOffset storedOffset(const std::optional<TableRef>& table) const;
  std::unique_ptr<TableQuerier> makeQuerier(const std::optional<TableRef>& table);
  void waitUntil(Clock::time_point until);
  // After a query of `fqn` failed: whether the table is still there (else its querier is gone).
  bool stillListed(const std::string& fqn);
  bool woken();

  JdbcSourceConfig config_;
  std::unique_ptr<SourceDatabase> db_;
  std::map<std::string, std::unique_ptr<TableQuerier>> queriers_;  // by qualified name
  std::string current_;                                            // the querier being read
  Clock::time_point next_table_poll_{};
  // Failed connection attempts in a row, and when the next may be made (connection.attempts,
  // connection.backoff.ms).
  int connect_failures_ = 0;
  Clock::time_point next_connect_{};
  std::mutex mutex_;
  std::condition_variable woken_;
  bool wake_ = false;
};

}  // namespace ksink::jdbc
