// PgSession: the PostgreSQL sink's one connection, opened on demand with the session settings
// (lock and idle-in-transaction bounds, TimeZone = db.timezone) and reopened after it is lost.
// drop() forgets it and tells the owner (on_drop), whose caches of the server's state go with
// it. Single-threaded: the task's thread.
#pragma once

#include <chrono>
#include <functional>
#include <optional>

#include "ksink/pg/pg_connection.h"
#include "ksink/pg/pg_connection_url.h"
#include "postgres_sink_config.h"

namespace ksink::postgres {

class PgSession {
 public:
  PgSession(const PostgresSinkConfig& config, std::function<void()> on_drop)
      : config_(config), url_(config.connection_url), on_drop_(std::move(on_drop)) {}

  // The open connection, or a new one. Throws a retriable WriteError (with retry.backoff.ms as
  // its backoff) when the server cannot be reached.
  PgConnection& connection();
  // The connection a transaction is open on; RetriableError when there is none.
  PgConnection& current();
  // The connection if there is one (e.g. to read a pipelined outcome); nullptr otherwise.
  PgConnection* existing() { return connection_ ? &*connection_ : nullptr; }
  void drop();
  // Closes without telling the owner (the task stops).
  void close() { connection_.reset(); }

  const PgConnectionUrl& url() const { return url_; }

 private:
  const PostgresSinkConfig& config_;
  PgConnectionUrl url_;
  std::function<void()> on_drop_;
  std::optional<PgConnection> connection_;
};

}  // namespace ksink::postgres
