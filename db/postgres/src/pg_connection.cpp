#include "ksink/pg/pg_connection.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <stdexcept>

namespace ksink::postgres {
namespace {

std::string field(const PGresult* r, int code) {
  const char* v = r ? PQresultErrorField(r, code) : nullptr;
  return v ? v : "";
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

PgConnection::PgConnection(PgConnPtr conn, std::chrono::milliseconds read_timeout)
    : conn_(std::move(conn)), watchdog_(std::make_unique<PgWatchdog>(read_timeout)) {}

PgWatchdog::Guard PgConnection::bounded() {
  return PgWatchdog::Guard(*watchdog_, PQsocket(conn_.get()));
}

PgConnection PgConnection::open(const ConnectionParams& params,
                                std::chrono::milliseconds read_timeout) {
  std::vector<const char*> keys, values;
  for (const auto& [k, v] : params) {
    keys.push_back(k.c_str());
    values.push_back(v.c_str());
  }
  keys.push_back(nullptr);
  values.push_back(nullptr);
  PgConnPtr conn(PQconnectdbParams(keys.data(), values.data(), /*expand_dbname=*/1));
  if (!conn) throw PgError({"", "libpq could not allocate a connection", "", "", ""}, true);
  if (PQstatus(conn.get()) != CONNECTION_OK)
    throw PgError({"", trimmed(PQerrorMessage(conn.get())), "", "", ""}, true);
  // Server notices ("relation already exists, skipping") go to the log, not to stderr.
  PQsetNoticeProcessor(
      conn.get(),
      [](void*, const char* message) { spdlog::debug("postgres: {}", trimmed(message)); }, nullptr);
  return PgConnection(std::move(conn), read_timeout);
}

bool PgConnection::ok() const {
  return conn_ && PQstatus(conn_.get()) == CONNECTION_OK;
}

int PgConnection::serverVersion() const {
  return PQserverVersion(conn_.get());
}

void PgConnection::fail(const PGresult* result, std::string_view what) {
  PgError::Diagnostics d{field(result, PG_DIAG_SQLSTATE), field(result, PG_DIAG_MESSAGE_PRIMARY),
                         field(result, PG_DIAG_MESSAGE_DETAIL), field(result, PG_DIAG_MESSAGE_HINT),
                         field(result, PG_DIAG_CONTEXT)};
  if (d.message.empty()) d.message = trimmed(PQerrorMessage(conn_.get()));
  if (d.message.empty()) d.message = fmt::format("{} failed", what);
  if (watchdog_->fired()) {
    d.message = fmt::format(
        "PostgreSQL did not answer within connection.read.timeout.ms ({} ms); the connection was "
        "dropped ({})",
        watchdog_->timeout().count(), d.message);
    throw PgError(std::move(d), true);
  }
  throw PgError(std::move(d), !ok());
}

void PgConnection::checkIdle() const {
  if (results_pending_)
    throw std::logic_error("PgConnection: a statement sent before collectResults()");
}

PgResultPtr PgConnection::exec(const std::string& sql) {
  checkIdle();
  const auto guard = bounded();
  if (in_copy_) abortCopy();
  PgResultPtr r(PQexec(conn_.get(), sql.c_str()));
  const auto status = r ? PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) fail(r.get(), sql);
  return r;
}

PgResultPtr PgConnection::execParams(const std::string& sql,
                                     const std::vector<std::optional<std::string>>& params) {
  checkIdle();
  const auto guard = bounded();
  if (in_copy_) abortCopy();
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const auto& p : params) values.push_back(p ? p->c_str() : nullptr);
  PgResultPtr r(PQexecParams(conn_.get(), sql.c_str(), static_cast<int>(values.size()), nullptr,
                             values.data(), nullptr, nullptr, 0));
  const auto status = r ? PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) fail(r.get(), sql);
  return r;
}

void PgConnection::sendLater(const std::string& sql) {
  checkIdle();
  const auto guard = bounded();
  if (in_copy_) abortCopy();
  if (PQsendQuery(conn_.get(), sql.c_str()) != 1) fail(nullptr, sql);
  results_pending_ = true;
}

PgResultPtr PgConnection::takeResult() {
  if (!results_pending_) throw std::logic_error("PgConnection: takeResult() without sendLater()");
  const auto guard = bounded();
  results_pending_ = false;
  PgResultPtr r(PQgetResult(conn_.get()));
  drainResults();  // the end of the statement's results
  const auto status = r ? PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK)
    fail(r.get(), "a statement sent ahead");
  return r;
}

PgResultPtr PgConnection::describePortal(const std::string& name) {
  checkIdle();
  const auto guard = bounded();
  PgResultPtr r(PQdescribePortal(conn_.get(), name.c_str()));
  if (!r || PQresultStatus(r.get()) != PGRES_COMMAND_OK) fail(r.get(), "describing " + name);
  return r;
}

PgCancelPtr PgConnection::cancelHandle() const {
  return PgCancelPtr(PQgetCancel(conn_.get()));
}

int64_t PgConnection::affectedRows(const PGresult* result) {
  const char* n = PQcmdTuples(const_cast<PGresult*>(result));
  return n && *n ? std::stoll(n) : 0;
}

void PgConnection::beginCopy(const std::string& sql) {
  checkIdle();
  const auto guard = bounded();
  PgResultPtr r(PQexec(conn_.get(), sql.c_str()));
  if (!r || PQresultStatus(r.get()) != PGRES_COPY_IN) fail(r.get(), sql);
  in_copy_ = true;
}

void PgConnection::putCopyData(std::string_view data) {
  if (data.empty()) return;
  const auto guard = bounded();
  if (PQputCopyData(conn_.get(), data.data(), static_cast<int>(data.size())) != 1) {
    // The server may already have rejected a row and said why: collect that instead of libpq's
    // generic "COPY failed" text.
    in_copy_ = false;
    PQputCopyEnd(conn_.get(), "ksink: aborting COPY");
    PgResultPtr r(PQgetResult(conn_.get()));
    drainResults();
    fail(r.get(), "COPY data");
  }
}

int64_t PgConnection::endCopy() {
  const auto guard = bounded();
  in_copy_ = false;
  if (PQputCopyEnd(conn_.get(), nullptr) != 1) fail(nullptr, "COPY end");
  PgResultPtr r(PQgetResult(conn_.get()));
  drainResults();
  if (!r || PQresultStatus(r.get()) != PGRES_COMMAND_OK) fail(r.get(), "COPY");
  return affectedRows(r.get());
}

void PgConnection::endCopyLater() {
  const auto guard = bounded();
  in_copy_ = false;
  if (PQputCopyEnd(conn_.get(), nullptr) != 1) fail(nullptr, "COPY end");
  results_pending_ = true;
}

void PgConnection::collectResults() {
  const auto guard = bounded();
  results_pending_ = false;
  PgResultPtr failed;
  while (PgResultPtr r{PQgetResult(conn_.get())}) {
    const auto status = PQresultStatus(r.get());
    if (!failed && status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) failed = std::move(r);
  }
  if (failed || !ok()) fail(failed.get(), "COPY and COMMIT");
}

void PgConnection::drainResults() {
  while (PgResultPtr extra{PQgetResult(conn_.get())}) {
  }
}

void PgConnection::abortCopy() noexcept {
  in_copy_ = false;
  if (PQputCopyEnd(conn_.get(), "ksink: COPY abandoned") == 1) drainResults();
}

}  // namespace ksink::postgres
