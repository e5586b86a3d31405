// WriteFailure: every failure a table sink meets while writing, sorted by what to do next — the
// one taxonomy both reference sinks use. A sink decides the kind in one place from its driver's
// codes (PostgreSQL: PgError::classify() by SQLSTATE; SQLite: sqliteFailure() by result code);
// TransactionalSinkTask::failWrite() turns it into what the worker understands.
#pragma once

#include <string_view>

namespace ksink {

enum class WriteFailure {
  // Transient (lost connection, lock held by another writer, serialization failure, disk full):
  // the same batch is redelivered after the backoff (RetriableError).
  kRetriable,
  // The destination rejected the data of (at least) one record (constraint or type violation):
  // the record is isolated and goes to the errant record reporter, or fails the task naming it.
  kBadRecord,
  // Anything else (missing table, permissions, a corrupt file): retrying will not help; the task
  // fails.
  kFatal,
};

constexpr std::string_view toString(WriteFailure failure) {
  switch (failure) {
    case WriteFailure::kRetriable:
      return "retriable";
    case WriteFailure::kBadRecord:
      return "bad record";
    case WriteFailure::kFatal:
      return "fatal";
  }
  return "fatal";
}

}  // namespace ksink
