// DbFailure: a database call's failure, sorted by what its caller should do next — the one
// taxonomy the PostgreSQL and SQLite clients classify their drivers' codes into (PgError by
// SQLSTATE, sqliteFailure() by result code), for sinks and sources alike. A sink turns it into
// the table toolkit's WriteFailure; a source into RetriableError or a failed task.
#pragma once

#include <string_view>

namespace ksink {

enum class DbFailure {
  // Transient (lost connection, a lock held by another session, serialization failure, disk
  // full): the same work may succeed when it is done again.
  kRetriable,
  // The database rejected the data given to it (a constraint or type violation).
  kBadData,
  // Anything else (a missing table, permissions, a corrupt file): retrying will not help.
  kFatal,
};

constexpr std::string_view toString(DbFailure failure) {
  switch (failure) {
    case DbFailure::kRetriable:
      return "retriable";
    case DbFailure::kBadData:
      return "bad data";
    case DbFailure::kFatal:
      return "fatal";
  }
  return "fatal";
}

}  // namespace ksink
