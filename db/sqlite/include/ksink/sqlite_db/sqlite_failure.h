// sqliteFailure(): the one place SQLite's failures are sorted into the database layer's DbFailure
// (for the SQLite sink and source alike), by primary result code:
//   SQLITE_BUSY (another connection holds the write lock past the busy timeout), SQLITE_LOCKED
//   (a conflict inside this process's shared cache), SQLITE_FULL (the disk may get space back)
//                                                  → kRetriable
//   SQLITE_CONSTRAINT, SQLITE_MISMATCH, SQLITE_TOOBIG → kBadData
//   anything else (I/O error, corrupt file, …)     → kFatal
// Pure; thread-safe.
#pragma once

#include "ksink/db/db_failure.h"

namespace SQLite {
class Exception;
}

namespace ksink::sqlite {

// `result_code`: a primary or an extended result code.
DbFailure sqliteFailure(int result_code);
DbFailure sqliteFailure(const SQLite::Exception& error);

}  // namespace ksink::sqlite
