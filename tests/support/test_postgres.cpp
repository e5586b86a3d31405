#include "test_postgres.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "child_process.h"
#include "ksink/db/sql_identifier.h"
#include "ksink/pg/pg_handles.h"
#include "test_kafka.h"

namespace ksink::it {

using postgres::PgConnPtr;
using postgres::PgResultPtr;

PostgresServerProcess::PostgresServerProcess(std::filesystem::path workdir,
                                             std::vector<std::string> env)
    : workdir_(std::move(workdir)), env_(std::move(env)) {}

PostgresServerProcess::~PostgresServerProcess() {
  try {
    script("stop.sh", {"--purge"});
  } catch (...) {
  }
}

void PostgresServerProcess::script(const std::string& name, const std::vector<std::string>& args) {
  std::vector<std::string> argv{"/usr/bin/env"};
  argv.insert(argv.end(), env_.begin(), env_.end());
  argv.push_back(fmt::format("{}/integration/postgres/{}", KSINK_SOURCE_DIR, name));
  argv.push_back(workdir_.string());
  argv.insert(argv.end(), args.begin(), args.end());
  const auto log = workdir_.parent_path() / (workdir_.filename().string() + "-" + name + ".log");
  std::filesystem::create_directories(workdir_);
  ChildProcess p(argv, log);
  const auto status = p.wait(std::chrono::minutes(2));
  if (status != 0)
    throw std::runtime_error(fmt::format("{} failed ({}): {}", name,
                                         status ? std::to_string(*status) : "timed out", p.log()));
}

std::string PostgresServerProcess::start() {
  script("start.sh", {});
  std::ifstream in(workdir_ / "url");
  std::getline(in, url_);
  if (url_.empty())
    throw std::runtime_error("start.sh wrote no URL to " + (workdir_ / "url").string());
  running_ = true;
  return url_;
}

void PostgresServerProcess::stop() {
  if (!running_) return;
  running_ = false;
  script("stop.sh", {});
}

struct PgTestSchema::Connection {
  PgConnPtr conn;
};

PgTestSchema::PgTestSchema(std::string server_url, std::string schema)
    : schema_(std::move(schema)), url_(TestPostgres::withSearchPath(server_url, schema_)) {}

PgTestSchema::~PgTestSchema() = default;

void PgTestSchema::disconnect() {
  connection_.reset();
}

PgTestSchema::Connection& PgTestSchema::connection() {
  if (connection_ && PQstatus(connection_->conn.get()) == CONNECTION_OK) return *connection_;
  connection_ = std::make_unique<Connection>();
  connection_->conn.reset(PQconnectdb(url_.c_str()));
  if (PQstatus(connection_->conn.get()) != CONNECTION_OK)
    throw std::runtime_error(
        fmt::format("cannot connect to {}: {}", url_, PQerrorMessage(connection_->conn.get())));
  // Tests read results, not notices ("table does not exist, skipping").
  PQsetNoticeProcessor(
      connection_->conn.get(), [](void*, const char*) {}, nullptr);
  return *connection_;
}

void PgTestSchema::exec(const std::string& sql) {
  query(sql);
}

PgTestSchema::Rows PgTestSchema::query(const std::string& sql) {
  auto* c = &connection();
  PgResultPtr r(PQexec(c->conn.get(), sql.c_str()));
  auto status = PQresultStatus(r.get());
  if (status == PGRES_FATAL_ERROR && PQstatus(c->conn.get()) == CONNECTION_BAD) {
    // The server restarted since the last query: this one never ran; run it on a new session.
    c = &connection();
    r.reset(PQexec(c->conn.get(), sql.c_str()));
    status = PQresultStatus(r.get());
  }
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK)
    throw std::runtime_error(fmt::format("{}: {}", sql, PQerrorMessage(c->conn.get())));
  Rows rows;
  for (int i = 0; i < PQntuples(r.get()); ++i) {
    auto& row = rows.emplace_back();
    for (int j = 0; j < PQnfields(r.get()); ++j)
      row.push_back(PQgetisnull(r.get(), i, j)
                        ? std::nullopt
                        : std::optional<std::string>(PQgetvalue(r.get(), i, j)));
  }
  return rows;
}

std::optional<std::string> PgTestSchema::scalar(const std::string& sql) {
  const auto rows = query(sql);
  if (rows.size() != 1 || rows[0].size() != 1)
    throw std::runtime_error(fmt::format("{}: expected one value, got {} rows", sql, rows.size()));
  return rows[0][0];
}

int64_t PgTestSchema::count(const std::string& table, const std::string& where) {
  return std::stoll(*scalar(fmt::format("SELECT count(*) FROM {}{}{}", quoteIdentifier(table),
                                        where.empty() ? "" : " WHERE ", where)));
}

TestPostgres& TestPostgres::shared() {
  static std::unique_ptr<PostgresServerProcess> own;
  static TestPostgres* instance = [] {
    if (const char* env = std::getenv("KSINK_TEST_PG_URL"); env && *env)
      return new TestPostgres(env);
    own = std::make_unique<PostgresServerProcess>(freshDir("ksink-pg"));
    return new TestPostgres(own->start());
  }();
  return *instance;
}

namespace {
bool isUri(const std::string& url) {
  return url.starts_with("postgresql://") || url.starts_with("postgres://");
}
}  // namespace

std::string TestPostgres::withSearchPath(const std::string& url, const std::string& schema) {
  // The schema names freshSchema() makes need no quoting inside options.
  return withParameter(url, "options",
                       isUri(url) ? "-csearch_path%3D" + schema : "'-csearch_path=" + schema + "'");
}

std::string TestPostgres::withParameter(const std::string& url, const std::string& keyword,
                                        const std::string& value) {
  if (isUri(url))
    return fmt::format("{}{}{}={}", url, url.find('?') == std::string::npos ? "?" : "&", keyword,
                       value);
  return fmt::format("{} {}={}", url, keyword, value);
}

std::unique_ptr<PgTestSchema> TestPostgres::freshSchema(const std::string& prefix) {
  std::string name = uniqueName(prefix);
  for (auto& c : name)
    if (c == '-') c = '_';
  PgTestSchema admin(url_, "public");
  admin.exec(fmt::format("CREATE SCHEMA {}", name));
  return std::make_unique<PgTestSchema>(url_, name);
}

}  // namespace ksink::it
