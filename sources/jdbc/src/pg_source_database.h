// PgSourceDatabase: a table source's PostgreSQL (SourceDatabase over libpq). One connection,
// opened on demand and again after it is lost, with the session the column readers expect
// (DateStyle ISO, TimeZone UTC, extra_float_digits 3, bytea_output hex). A query runs as a
// server-side cursor in a read-only transaction (DECLARE … NO SCROLL CURSOR, FETCH FORWARD n), so
// a table of any size streams batch by batch; the transaction ends with the cursor. Every wait
// for the server is bounded by `read_timeout` (the connection's watchdog), and cancel() asks the
// server to stop a statement that is running — returning at once, before the server answers.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "ksink/pg/pg_connection.h"
#include "source_database.h"

namespace ksink::jdbc {

class PgSourceDatabase final : public SourceDatabase {
 public:
  // `db_timezone`: the zone of `timestamp` columns (checked by the server at the first connect).
  PgSourceDatabase(postgres::ConnectionParams params, std::string db_timezone,
                   std::chrono::milliseconds read_timeout);
  ~PgSourceDatabase() override;

  std::vector<TableRef> listTables(const std::vector<std::string>& types,
                                   const std::string& schema) override;
  TableInfo describe(const TableRef& table) override;
  Instant now() override;
  std::string placeholder(int n) const override { return "$" + std::to_string(n); }
  std::string timestampExpression(const std::string& quoted_column, bool zoneless) const override;
  std::unique_ptr<RowCursor> query(const QuerySpec& spec) override;
  bool commitsOutOfOrder() const override { return true; }
  Horizon horizon(const std::string& from_clause, const std::string& incrementing_expression,
                  bool timestamps) override;
  void cancel() override;

 private:
  class Cursor;
  postgres::PgConnection& connection();
  void drop();
  // Runs `work` on the connection, turning a PgError into a DbError (and dropping a lost
  // connection).
  template <typename F>
  auto run(F&& work) -> decltype(work(std::declval<postgres::PgConnection&>()));

  postgres::ConnectionParams params_;
  std::string db_timezone_;
  std::chrono::milliseconds read_timeout_;
  std::optional<postgres::PgConnection> connection_;
  // The open connection's cancel handle, with whether a cancel of it is in flight (shared with
  // that cancel's thread). Guarded by cancel_mutex_: wakeup() reads it from another thread.
  struct CancelHandle {
    std::shared_ptr<PGcancel> handle;
    std::shared_ptr<std::atomic<bool>> in_flight = std::make_shared<std::atomic<bool>>(false);
  };
  std::mutex cancel_mutex_;
  std::optional<CancelHandle> cancel_;
  bool cursor_open_ = false;
  // The open cursor, whose next batch may be on its way (read ahead): any other statement takes
  // it off the connection first, for the cursor to return later.
  Cursor* reading_ = nullptr;
  bool standby_checked_ = false;
};

}  // namespace ksink::jdbc
