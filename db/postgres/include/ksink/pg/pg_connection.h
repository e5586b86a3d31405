// PgConnection: one libpq connection, owned, with every failure turned into a classified PgError.
//
// Blocking mode throughout: a task thread is the only user of a connection, so there is nothing
// to overlap but the server's work with the caller's: COPY data streams as it goes, and a
// statement can be sent ahead (sendLater) and its result taken when it is needed. Every call that
// waits for the server is bounded by the read timeout (PgWatchdog): past it the connection is cut
// and the call throws a retriable PgError. Not thread-safe; move-only.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ksink/pg/pg_error.h"
#include "ksink/pg/pg_handles.h"
#include "ksink/pg/pg_watchdog.h"

namespace ksink::postgres {

// libpq keyword/value pairs, in order: when a keyword repeats, the last one wins.
using ConnectionParams = std::vector<std::pair<std::string, std::string>>;

class PgConnection {
 public:
  // Connects; throws PgError (kind kRetriable, connectionLost) with libpq's reason on failure.
  // `read_timeout` bounds every later wait for the server (0: unbounded).
  static PgConnection open(const ConnectionParams& params,
                           std::chrono::milliseconds read_timeout = {});

  PgConnection(PgConnection&&) noexcept = default;
  PgConnection& operator=(PgConnection&&) noexcept = default;

  // Runs one or more statements without parameters; throws PgError unless they succeed.
  PgResultPtr exec(const std::string& sql);
  // One statement with text parameters (nullopt = NULL).
  PgResultPtr execParams(const std::string& sql,
                         const std::vector<std::optional<std::string>>& params);
  // Sends one statement without waiting for it: the server works on it while the caller does
  // something else; takeResult() reads its result, and until then the connection takes nothing
  // else (resultsPending()).
  void sendLater(const std::string& sql);
  // The result of the statement sendLater() sent; throws PgError unless it succeeded.
  PgResultPtr takeResult();
  // The columns of the open cursor (portal) `name`, as a result without rows.
  PgResultPtr describePortal(const std::string& name);
  // What cancels the statement running on this connection, from any thread (PQcancel); it stays
  // usable after the connection is gone (the cancel then reaches nothing).
  PgCancelPtr cancelHandle() const;
  // Rows affected by the statement that produced `result` (INSERT/UPDATE/DELETE/COPY).
  static int64_t affectedRows(const PGresult* result);

  // COPY ... FROM STDIN: begin, stream any number of chunks, end (returns the rows copied).
  // A failure anywhere throws PgError with the server's diagnostics and leaves no COPY running.
  // `sql` may go on after the COPY with more statements ("COPY ...; COMMIT"): the server runs
  // them once the data ends.
  void beginCopy(const std::string& sql);
  void putCopyData(std::string_view data);
  int64_t endCopy();
  // Ends the COPY without waiting for the server: the results of the COPY and of the statements
  // after it are read later by collectResults(); until then the connection takes nothing else.
  void endCopyLater();
  // Reads every result endCopyLater() left; throws PgError for the first failure among them.
  void collectResults();
  bool resultsPending() const { return results_pending_; }

  // False once libpq reports the connection broken; a broken connection is dropped, not reused.
  bool ok() const;
  // The server's version as an integer (150004 for 15.4).
  int serverVersion() const;

 private:
  PgConnection(PgConnPtr conn, std::chrono::milliseconds read_timeout);
  // Arms the read timeout for one call.
  PgWatchdog::Guard bounded();
  [[noreturn]] void fail(const PGresult* result, std::string_view what);
  void drainResults();
  // Ends a COPY left open by an exception between beginCopy() and endCopy().
  void abortCopy() noexcept;

  // A statement while results are pending would be refused by libpq; it is a bug in the caller.
  void checkIdle() const;

  PgConnPtr conn_;
  std::unique_ptr<PgWatchdog> watchdog_;  // after conn_: stops watching before the socket closes
  bool in_copy_ = false;
  bool results_pending_ = false;
};

}  // namespace ksink::postgres
