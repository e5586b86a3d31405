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

using PgConnPtr = std::unique_ptr<PGconn, PgConnDeleter>;
using PgResultPtr = std::unique_ptr<PGresult, PgResultDeleter>;

}  // namespace ksink::postgres
