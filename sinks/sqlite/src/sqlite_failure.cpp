#include "sqlite_failure.h"

#include <SQLiteCpp/Exception.h>
#include <sqlite3.h>

namespace ksink::sqlite {

WriteFailure sqliteFailure(int result_code) {
  switch (result_code & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_FULL:
      return WriteFailure::kRetriable;
    case SQLITE_CONSTRAINT:
    case SQLITE_MISMATCH:
    case SQLITE_TOOBIG:
      return WriteFailure::kBadRecord;
    default:
      return WriteFailure::kFatal;
  }
}

WriteFailure sqliteFailure(const SQLite::Exception& error) {
  return sqliteFailure(error.getErrorCode());
}

}  // namespace ksink::sqlite
