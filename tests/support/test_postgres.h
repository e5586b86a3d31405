// Test access to a real PostgreSQL server for the integration tests.
//
// TestPostgres::shared() is the server named by KSINK_TEST_PG_URL (scripts/test starts one for the
// whole run) or, when unset, one this test binary starts itself with integration/postgres/start.sh
// and stops at exit: a test never skips because no server is running. Tests that restart the
// server run a PostgresServerProcess of their own.
//
// Each test works in a fresh schema (freshSchema()): its URL sets search_path to it, so the sink's
// tables and its ksink_offsets table land there and tests never see each other's rows.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ksink::it {

// A server run by integration/postgres/start.sh in its own work directory. `env` (NAME=value) is
// set for the script, e.g. KSINK_PG_AUTH=scram and KSINK_PG_SSL=1 for a password- and SSL-only
// server whose password and certificate the script leaves in workdir()/password and /root.crt.
class PostgresServerProcess {
 public:
  explicit PostgresServerProcess(std::filesystem::path workdir, std::vector<std::string> env = {});
  ~PostgresServerProcess();  // stops the server and deletes its files
  // Starts (or restarts, with its data and port) the server; returns a libpq URL.
  std::string start();
  // Fast shutdown (clients are disconnected); the data stays for start().
  void stop();
  const std::string& url() const { return url_; }
  const std::filesystem::path& workdir() const { return workdir_; }

 private:
  void script(const std::string& name, const std::vector<std::string>& args);

  std::filesystem::path workdir_;
  std::vector<std::string> env_;
  std::string url_;
  bool running_ = false;
};

// A connection to one test's schema: run SQL, read rows. Reconnects when the connection broke
// (e.g. across a server restart).
class PgTestSchema {
 public:
  PgTestSchema(std::string server_url, std::string schema);
  ~PgTestSchema();
  PgTestSchema(const PgTestSchema&) = delete;
  PgTestSchema& operator=(const PgTestSchema&) = delete;

  const std::string& name() const { return schema_; }
  // A libpq URL whose sessions have search_path = this schema: the sink's connection.url.
  const std::string& url() const { return url_; }

  // Runs one or more statements; throws std::runtime_error with the server's message.
  void exec(const std::string& sql);
  // Rows of a query, each value as text (nullopt = NULL).
  using Rows = std::vector<std::vector<std::optional<std::string>>>;
  Rows query(const std::string& sql);
  // The single value of a one-row, one-column query.
  std::optional<std::string> scalar(const std::string& sql);
  int64_t count(const std::string& table, const std::string& where = "");
  // Gives the connection back to the server; the next call opens one again. For a test that
  // holds many schemas while the code under test needs the server's connections.
  void disconnect();

 private:
  struct Connection;
  Connection& connection();

  std::string schema_;
  std::string url_;
  std::unique_ptr<Connection> connection_;
};

class TestPostgres {
 public:
  explicit TestPostgres(std::string url) : url_(std::move(url)) {}
  static TestPostgres& shared();

  // The server's URL (its ksink_test database).
  const std::string& url() const { return url_; }
  // A new, empty schema named after `prefix`, kept after the test for post-mortems.
  std::unique_ptr<PgTestSchema> freshSchema(const std::string& prefix);
  // `url` with search_path set to `schema` (URI or conninfo form).
  static std::string withSearchPath(const std::string& url, const std::string& schema);
  // `url` with one more connection parameter (URI or conninfo form); `value` as each form writes
  // it.
  static std::string withParameter(const std::string& url, const std::string& keyword,
                                   const std::string& value);

 private:
  std::string url_;
};

}  // namespace ksink::it
