// sqliteFailure(): the one place the SQLite sink sorts SQLite's failures into the toolkit's
// WriteFailure, by primary result code:
//   SQLITE_BUSY (another connection holds the write lock past the busy timeout), SQLITE_LOCKED
//   (a conflict inside this process's shared cache), SQLITE_FULL (the disk may get space back)
//                                                  → kRetriable
//   SQLITE_CONSTRAINT, SQLITE_MISMATCH, SQLITE_TOOBIG → kBadRecord
//   anything else (I/O error, corrupt file, …)     → kFatal
// Pure; thread-safe.
#pragma once

#include "ksink/write_failure.h"

namespace SQLite {
class Exception;
}

namespace ksink::sqlite {

// `result_code`: a primary or an extended result code.
WriteFailure sqliteFailure(int result_code);
WriteFailure sqliteFailure(const SQLite::Exception& error);

}  // namespace ksink::sqlite
