#include "pg_session.h"

#include <fmt/format.h>

#include "ksink/pg/pg_error.h"
#include "ksink/retriable_error.h"
#include "ksink/write_failure.h"
#include "pg_sql.h"

namespace ksink::postgres {

PgConnection& PgSession::connection() {
  if (connection_ && connection_->ok()) return *connection_;
  drop();
  try {
    auto c = PgConnection::open(url_.params(config_.connection_user, config_.connection_password),
                                config_.read_timeout);
    // A bad zone name fails here with the server's reason.
    c.exec(PgSql::sessionSettings(config_.db_timezone));
    connection_.emplace(std::move(c));
  } catch (const PgError& e) {
    throw WriteError(WriteFailure::kRetriable, "PostgreSQL",
                     fmt::format("cannot connect to PostgreSQL at {}: {}",
                                 Config::redactPasswords(config_.connection_url), e.what()),
                     std::chrono::milliseconds(config_.retry_backoff_ms));
  }
  return *connection_;
}

PgConnection& PgSession::current() {
  if (!connection_) throw RetriableError("PostgreSQL: the connection closed mid-transaction");
  return *connection_;
}

void PgSession::drop() {
  connection_.reset();
  if (on_drop_) on_drop_();
}

}  // namespace ksink::postgres
