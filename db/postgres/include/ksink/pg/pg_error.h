// PgError: a failed libpq call, with the server's SQLSTATE and diagnostics, classified once into
// what its caller must do about it (abseil's taxonomy: retry the call, skip/report the data, stop).
//
// The classification lives in PgError::classify() and nowhere else; every libpq failure a sink
// or a source sees becomes a PgError through PgConnection. Its kinds are the database layer's
// DbFailure (ksink/db/db_failure.h), which each connector turns into what the worker understands.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "ksink/db/db_failure.h"

namespace ksink::postgres {

class PgError : public std::runtime_error {
 public:
  // kRetriable: lost connection, serialization failure, deadlock, server shutting down, lock or
  //   resource pressure (08, 40001, 40P01, 40003, 57P0x, 57014, 55P03, 55006, 53, 58000, 58030).
  //   Reconnect and redeliver the same batch.
  // kBadData: the data of (at least) one record was rejected: 22xxx data exceptions, 23xxx
  //   constraint violations, 40002, 54000 (e.g. an oversized value for an index). Isolate the
  //   record and report it.
  // kFatal: anything else (missing table or column, permissions, syntax): retrying will not help.
  using Kind = DbFailure;

  struct Diagnostics {
    std::string sqlstate;  // empty when the server sent none (client-side or connection failure)
    std::string message;   // primary message, or libpq's text
    std::string detail;
    std::string hint;
    std::string context;  // e.g. "COPY t, line 3, column x: ..."
  };

  PgError(Diagnostics diagnostics, bool connection_lost);

  // What to do about a failure with `sqlstate` (empty = none) on a connection that is (not) lost.
  static Kind classify(std::string_view sqlstate, bool connection_lost);

  Kind kind() const { return kind_; }
  bool connectionLost() const { return connection_lost_; }
  const Diagnostics& diagnostics() const { return diagnostics_; }
  const std::string& sqlstate() const { return diagnostics_.sqlstate; }
  // A CREATE that lost a race with another session creating the same object, which therefore
  // exists now: 42P07 duplicate_table, 42701 duplicate_column, 42710 duplicate_object (the
  // table's row type), or 23505 on a catalog's unique index when the CREATEs really overlapped.
  bool createdByAnother() const;
  // The 1-based data line a COPY failed on, from the context ("COPY t, line 3, ..."); nullopt
  // when the error did not come from a COPY row.
  std::optional<int64_t> copyLine() const;

 private:
  Diagnostics diagnostics_;
  bool connection_lost_;
  Kind kind_;
};

}  // namespace ksink::postgres
