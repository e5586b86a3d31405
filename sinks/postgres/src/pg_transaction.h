// PgTransaction: a scoped transaction on a PgConnection. BEGIN on construction, ROLLBACK on
// destruction unless commit() was called (SQLiteCpp's Transaction, libpqxx's work).
//
// The destructor never throws; on a broken connection it skips the rollback (the server aborts
// the transaction when the session ends). Same thread as the connection.
#pragma once

#include "ksink/pg/pg_connection.h"

namespace ksink::postgres {

class PgTransaction {
 public:
  explicit PgTransaction(PgConnection& connection);
  ~PgTransaction();
  PgTransaction(const PgTransaction&) = delete;
  PgTransaction& operator=(const PgTransaction&) = delete;

  // Throws PgError; after a failed COMMIT the outcome is unknown (the caller's offsets
  // compare-and-set is what makes a redelivery safe).
  void commit();
  // COMMIT went to the server behind the transaction's last statement (PgConnection::beginCopy's
  // "COPY ...; COMMIT"); its outcome is read with that statement's results, so nothing is left to
  // roll back here.
  void commitSent() { active_ = false; }

 private:
  PgConnection& connection_;
  bool active_ = true;
};

}  // namespace ksink::postgres
