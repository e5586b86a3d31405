#include "pg_transaction.h"

#include "pg_sql.h"

namespace ksink::postgres {

PgTransaction::PgTransaction(PgConnection& connection) : connection_(connection) {
  connection_.exec(PgSql::begin());
}

PgTransaction::~PgTransaction() {
  if (!active_ || !connection_.ok()) return;
  try {
    connection_.exec(PgSql::rollback());
  } catch (...) {
    // The connection is then broken and will be replaced; nothing else to do here.
  }
}

void PgTransaction::commit() {
  active_ = false;
  connection_.exec(PgSql::commit());
}

}  // namespace ksink::postgres
