#include "ksink/sqlite_db/sqlite_failure.h"

#include <SQLiteCpp/Exception.h>
#include <sqlite3.h>

namespace ksink::sqlite {

DbFailure sqliteFailure(int result_code) {
  switch (result_code & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_FULL:
      return DbFailure::kRetriable;
    case SQLITE_CONSTRAINT:
    case SQLITE_MISMATCH:
    case SQLITE_TOOBIG:
      return DbFailure::kBadData;
    default:
      return DbFailure::kFatal;
  }
}

DbFailure sqliteFailure(const SQLite::Exception& error) {
  return sqliteFailure(error.getErrorCode());
}

}  // namespace ksink::sqlite
