#include "pg_transaction.h"

namespace ksink::postgres {

PgTransaction::PgTransaction(PgConnection& connection) : connection_(connection) {
  connection_.exec("BEGIN");
}

PgTransaction::~PgTransaction() {
  if (!active_ || !connection_.ok()) return;
  try {
    connection_.exec("ROLLBACK");
  } catch (...) {
    // The connection is then broken and will be replaced; nothing else to do here.
  }
}

void PgTransaction::commit() {
  active_ = false;
  connection_.exec("COMMIT");
}

}  // namespace ksink::postgres
