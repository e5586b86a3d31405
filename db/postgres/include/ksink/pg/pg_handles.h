// One owner per libpq C handle: unique_ptr aliases with the matching free function.
#pragma once

#include <libpq-fe.h>

#include <memory>

namespace ksink::postgres {

struct PgConnDeleter {
  void operator()(PGconn* c) const noexcept { PQfinish(c); }
};
struct PgResultDeleter {
  void operator()(PGresult* r) const noexcept { PQclear(r); }
};

struct PgCancelDeleter {
  void operator()(PGcancel* c) const noexcept { PQfreeCancel(c); }
};

using PgConnPtr = std::unique_ptr<PGconn, PgConnDeleter>;
using PgCancelPtr = std::unique_ptr<PGcancel, PgCancelDeleter>;
using PgResultPtr = std::unique_ptr<PGresult, PgResultDeleter>;

}  // namespace ksink::postgres
