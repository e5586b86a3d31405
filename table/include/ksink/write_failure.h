// WriteFailure: every failure a table sink meets while writing, sorted by what to do next — the
// one taxonomy both reference sinks use. A sink decides the kind in one place from its driver's
// codes (PostgreSQL: PgError::classify() by SQLSTATE; SQLite: sqliteFailure() by result code);
// a destination throws it as WriteError, and TransactionalSinkTask turns that into what the
// worker understands.
#pragma once

#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "ksink/db/db_failure.h"

namespace ksink {

// The database layer's taxonomy (ksink/db/db_failure.h): kRetriable — the same batch is
// redelivered after the backoff (RetriableError); kBadData — the destination rejected the data of
// (at least) one record, which is isolated and goes to the errant record reporter, or fails the
// task naming it; kFatal — the task fails.
using WriteFailure = DbFailure;

// A destination's failure to write a batch, classified. TransactionalSinkTask turns kRetriable
// into RetriableError (the batch comes again, after `backoff` when set: context().timeout()) and
// the other kinds into a fatal error. `destination` names the database in the message
// ("PostgreSQL", "SQLite /data/x.db").
class WriteError : public std::runtime_error {
 public:
  WriteError(WriteFailure kind, std::string destination, const std::string& what,
             std::optional<std::chrono::milliseconds> backoff = std::nullopt)
      : std::runtime_error(what),
        kind_(kind),
        destination_(std::move(destination)),
        backoff_(backoff) {}

  WriteFailure kind() const { return kind_; }
  const std::string& destination() const { return destination_; }
  std::optional<std::chrono::milliseconds> backoff() const { return backoff_; }

 private:
  WriteFailure kind_;
  std::string destination_;
  std::optional<std::chrono::milliseconds> backoff_;
};

}  // namespace ksink
