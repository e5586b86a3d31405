#include "ksink/pg/pg_error.h"

#include <fmt/format.h>

#include <charconv>

namespace ksink::postgres {
namespace {

std::string describe(const PgError::Diagnostics& d) {
  std::string out =
      d.sqlstate.empty() ? d.message : fmt::format("{} (SQLSTATE {})", d.message, d.sqlstate);
  if (!d.detail.empty()) out += fmt::format("; detail: {}", d.detail);
  if (!d.context.empty()) out += fmt::format("; context: {}", d.context);
  return out;
}

}  // namespace

PgError::PgError(Diagnostics diagnostics, bool connection_lost)
    : std::runtime_error(describe(diagnostics)),
      diagnostics_(std::move(diagnostics)),
      connection_lost_(connection_lost),
      kind_(classify(diagnostics_.sqlstate, connection_lost)) {}

PgError::Kind PgError::classify(std::string_view sqlstate, bool connection_lost) {
  // A dead connection is retriable whatever the server said last: the next attempt reconnects.
  if (connection_lost) return Kind::kRetriable;
  if (sqlstate.size() != 5) return Kind::kFatal;
  const std::string_view cls = sqlstate.substr(0, 2);
  if (cls == "08") return Kind::kRetriable;  // connection exception
  if (sqlstate == "40001" || sqlstate == "40P01" || sqlstate == "40003")
    return Kind::kRetriable;  // serialization failure, deadlock, completion unknown
  if (sqlstate == "57P01" || sqlstate == "57P02" || sqlstate == "57P03" || sqlstate == "57014")
    return Kind::kRetriable;  // admin/crash shutdown, cannot connect now, statement timeout
  if (sqlstate == "55P03" || sqlstate == "55006") return Kind::kRetriable;  // lock timeout, in use
  if (cls == "53") return Kind::kRetriable;  // insufficient resources: disk full, connections
  if (sqlstate == "58000" || sqlstate == "58030") return Kind::kRetriable;  // system / I/O error
  if (cls == "22" || cls == "23") return Kind::kBadData;
  if (sqlstate == "40002") return Kind::kBadData;  // deferred constraint failed at commit
  if (sqlstate == "54000") return Kind::kBadData;  // e.g. index row size exceeds maximum
  return Kind::kFatal;
}

bool PgError::createdByAnother() const {
  const auto& state = diagnostics_.sqlstate;
  return !connection_lost_ &&
         (state == "42P07" || state == "42701" || state == "42710" || state == "23505");
}

std::optional<int64_t> PgError::copyLine() const {
  // The server formats it as "COPY <table>, line <n>[, column <c>: ...]".
  const std::string_view ctx = diagnostics_.context;
  const auto at = ctx.find("COPY ");
  if (at == std::string_view::npos) return std::nullopt;
  const auto line = ctx.find(", line ", at);
  if (line == std::string_view::npos) return std::nullopt;
  const char* first = ctx.data() + line + 7;
  int64_t n = 0;
  const auto [end, ec] = std::from_chars(first, ctx.data() + ctx.size(), n);
  if (ec != std::errc() || end == first || n < 1) return std::nullopt;
  return n;
}

}  // namespace ksink::postgres
