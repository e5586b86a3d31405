// PostgreSQL security through connection.url, against a server that takes nothing but SSL and
// scram-sha-256 passwords over TCP (integration/postgres/start.sh with KSINK_PG_AUTH=scram and
// KSINK_PG_SSL=1, started here): a JDBC URL with sslmode=require plus connection.user /
// connection.password writes rows; the parameters the sink derives from the URL open an SSL
// session, sslrootcert and a password in the URL's query reach libpq, sslmode=disable is turned
// away; a wrong password stops the sink at start with an error that names the server — and the
// password appears in no error, status, log line or `ksink validate` output.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <fstream>
#include <regex>
#include <thread>

#include "child_process.h"
#include "ksink/ksink.h"
#include "ksink/pg/pg_connection.h"
#include "ksink/pg/pg_connection_url.h"
#include "ksink/postgres/postgres_sink_task.h"
#include "polling.h"
#include "test_kafka.h"
#include "test_postgres.h"

namespace ksink::it {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using postgres::PgConnection;
using postgres::PgConnectionUrl;
using Props = std::map<std::string, std::string>;

class PostgresSecurityTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new PostgresServerProcess(freshDir("ksink-pg-secure"),
                                        {"KSINK_PG_AUTH=scram", "KSINK_PG_SSL=1"});
    const auto url = server_->start();
    std::smatch m;
    ASSERT_TRUE(std::regex_match(url, m,
                                 std::regex(R"(postgresql://([^@]+)@127\.0\.0\.1:(\d+)/)"
                                            R"(ksink_test\?sslmode=require)")))
        << url;
    user_ = m[1];
    port_ = m[2];
    std::ifstream(server_->workdir() / "password") >> password_;
    ASSERT_FALSE(password_.empty());
    root_cert_ = (server_->workdir() / "root.crt").string();
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }

  void SetUp() override {
    // The test's own connection: the same server, the password in a libpq URI.
    TestPostgres admin(fmt::format("postgresql://{}:{}@127.0.0.1:{}/ksink_test?sslmode=require",
                                   user_, password_, port_));
    schema_ = admin.freshSchema("secure");
    dir_ = freshDir("ksink-pg-secure-run");
    topic_ = uniqueName("sec");
    name_ = uniqueName("pgsec");
  }

  // jdbc:postgresql://127.0.0.1:PORT/ksink_test?<query>&currentSchema=<this test's schema>
  std::string jdbcUrl(const std::string& query) const {
    return fmt::format("jdbc:postgresql://127.0.0.1:{}/ksink_test?{}&currentSchema={}", port_,
                       query, schema_->name());
  }

  Props connectorProps(const std::string& password) const {
    return {{"name", name_},
            {"connector.class", "postgres"},
            {"topics", topic_},
            {"connection.url", jdbcUrl("sslmode=require")},
            {"connection.user", user_},
            {"connection.password", password},
            {"insert.mode", "insert"},
            {"auto.create", "true"},
            {"value.converter.schemas.enable", "false"},
            {"key.converter", "string"},
            // A refused password fails the start at once (PostgresStatusTest covers the retries).
            {"connection.attempts", "1"}};
  }

  // Worker and connector .properties files for the ksink binary; returns their paths.
  std::pair<fs::path, fs::path> writeConfigs(const std::string& tag, const Props& connector) {
    const auto worker = dir_ / (tag + "-worker.properties");
    std::ofstream(worker) << fmt::format(
        "bootstrap.servers={}\nexit.on.task.failure=true\noffset.flush.interval.ms=500\nlog.level="
        "debug\nlisteners=\n",
        RealKafka::shared().bootstrap());
    const auto file = dir_ / (tag + "-connector.properties");
    std::ofstream out(file);
    for (const auto& [k, v] : connector) out << k << "=" << v << "\n";
    return {worker, file};
  }

  std::unique_ptr<ChildProcess> ksink(const std::string& tag, const std::string& command,
                                      const Props& connector) {
    const auto [worker, file] = writeConfigs(tag, connector);
    return std::make_unique<ChildProcess>(
        std::vector<std::string>{KSINK_BIN, command, worker.string(), file.string()},
        dir_ / (tag + ".log"));
  }

  // libpq connection parameters exactly as the sink derives them from connection.url and
  // connection.user / connection.password.
  static std::string sessionIsSsl(const std::string& url, const std::string& user,
                                  const std::string& password) {
    auto c = PgConnection::open(PgConnectionUrl(url).params(user, password));
    auto r = c.exec("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()");
    return PQgetvalue(r.get(), 0, 0);
  }

  static PostgresServerProcess* server_;
  static std::string user_, port_, password_, root_cert_;
  std::unique_ptr<PgTestSchema> schema_;
  fs::path dir_;
  std::string topic_;
  std::string name_;
};

PostgresServerProcess* PostgresSecurityTest::server_ = nullptr;
std::string PostgresSecurityTest::user_, PostgresSecurityTest::port_,
    PostgresSecurityTest::password_, PostgresSecurityTest::root_cert_;

TEST_F(PostgresSecurityTest, KsinkWritesOverSslWithConnectionPasswordAndNeverLogsIt) {
  auto& kafka = RealKafka::shared();
  kafka.createTopic(topic_, 2);
  std::vector<RealKafka::Message> messages;
  for (int i = 0; i < 20; ++i)
    messages.push_back(
        {i % 2, "k" + std::to_string(i), fmt::format(R"({{"id":{},"name":"n{}"}})", i, i)});
  kafka.produce(topic_, messages);

  auto process = ksink("run", "run", connectorProps(password_));
  const bool written = waitUntil(
      [&] {
        return !process->running() ||
               (schema_->scalar(fmt::format("SELECT to_regclass('\"{}\"') IS NOT NULL", topic_)) ==
                    "t" &&
                schema_->count(topic_) >= 20);
      },
      60s);
  process->signal(SIGTERM);
  EXPECT_EQ(process->wait(30s), 0) << process->log();
  ASSERT_TRUE(written) << process->log();

  PgTestSchema::Rows expected;
  for (int i = 0; i < 20; ++i) expected.push_back({std::to_string(i), "n" + std::to_string(i)});
  EXPECT_EQ(schema_->query(fmt::format("SELECT id, name FROM \"{}\" ORDER BY id", topic_)),
            expected);
  const auto log = process->log();
  EXPECT_NE(
      log.find(fmt::format("jdbc:postgresql://127.0.0.1:{}/ksink_test?sslmode=require", port_)),
      std::string::npos)
      << log;
  EXPECT_EQ(log.find(password_), std::string::npos) << log;
}

TEST_F(PostgresSecurityTest, TheParametersDerivedFromTheUrlOpenAnSslSession) {
  EXPECT_EQ(sessionIsSsl(jdbcUrl("sslmode=require"), user_, password_), "t");
}

TEST_F(PostgresSecurityTest, SslrootcertAndPasswordInTheUrlQueryReachLibpq) {
  // verify-full fails unless libpq reads this certificate (there is no ~/.postgresql/root.crt).
  const auto url = jdbcUrl(fmt::format("sslmode=verify-full&sslrootcert={}&user={}&password={}",
                                       root_cert_, user_, password_));
  EXPECT_EQ(sessionIsSsl(url, "", ""), "t");
  // The same in a libpq URI, which reaches libpq as it is.
  EXPECT_EQ(sessionIsSsl(fmt::format("postgresql://127.0.0.1:{}/ksink_test?sslmode=verify-full&"
                                     "sslrootcert={}&user={}&password={}",
                                     port_, root_cert_, user_, password_),
                         "", ""),
            "t");
}

TEST_F(PostgresSecurityTest, SslmodeDisableIsTurnedAwayByAnSslOnlyServer) {
  try {
    PgConnection::open(PgConnectionUrl(jdbcUrl("sslmode=disable")).params(user_, password_));
    FAIL() << "connected without SSL";
  } catch (const postgres::PgError& e) {
    EXPECT_NE(std::string(e.what()).find("no encryption"), std::string::npos) << e.what();
  }
}

TEST_F(PostgresSecurityTest, AWrongPasswordFailsTheStartNamingTheServerButNotThePassword) {
  RealKafka::shared().createTopic(topic_, 1);
  const std::string wrong = "Wr0ngPassw0rd";
  ConfigDef def = Worker::configDef();
  def.include(postgres::PostgresSinkTask::configDef());
  Props props = connectorProps(wrong);
  props["bootstrap.servers"] = RealKafka::shared().bootstrap();
  Worker worker(Config(props, def), [] { return std::make_unique<postgres::PostgresSinkTask>(); });
  std::string error;
  std::atomic<bool> done{false};
  std::thread runner([&] {
    try {
      worker.run();
    } catch (const std::exception& e) {
      error = e.what();
    }
    done = true;
  });
  const bool failed = waitUntil([&] { return done.load(); }, 60s);
  worker.stop();
  runner.join();
  ASSERT_TRUE(failed) << "the sink kept running with a wrong password";

  const auto server = fmt::format("127.0.0.1:{}/ksink_test", port_);
  EXPECT_NE(error.find(server), std::string::npos) << error;
  EXPECT_NE(error.find("password authentication failed"), std::string::npos) << error;
  EXPECT_EQ(error.find(wrong), std::string::npos) << error;
  // What /status shows.
  const auto status = worker.status();
  ASSERT_EQ(status.tasks.size(), 1u);
  EXPECT_EQ(status.tasks[0].state, "FAILED");
  EXPECT_NE(status.tasks[0].last_error.find("password authentication failed"), std::string::npos)
      << status.tasks[0].last_error;
  EXPECT_EQ(status.tasks[0].last_error.find(wrong), std::string::npos)
      << status.tasks[0].last_error;
}

TEST_F(PostgresSecurityTest, KsinkRunWithAWrongPasswordExitsWithoutPrintingIt) {
  RealKafka::shared().createTopic(topic_, 1);
  const std::string wrong = "Wr0ngPassw0rd";
  auto process = ksink("run", "run", connectorProps(wrong));
  const auto status = process->wait(60s);
  const auto log = process->log();
  ASSERT_TRUE(status) << "still running with a wrong password: " << log;
  EXPECT_NE(*status, 0) << log;
  EXPECT_NE(log.find("password authentication failed"), std::string::npos) << log;
  EXPECT_EQ(log.find(wrong), std::string::npos) << log;
}

TEST_F(PostgresSecurityTest, KsinkValidateNeverPrintsAPassword) {
  auto ok = ksink("valid", "validate", connectorProps(password_));
  EXPECT_EQ(ok->wait(60s), 0) << ok->log();
  EXPECT_NE(ok->log().find("ok (postgres)"), std::string::npos) << ok->log();
  EXPECT_EQ(ok->log().find(password_), std::string::npos) << ok->log();

  // A problem report quotes connection.url: its password, in the query or before the host, is
  // masked, and connection.password is never quoted at all.
  for (const auto& url :
       {fmt::format("jdbc:postgresql://127.0.0.1:port/ksink_test?password={}", password_),
        fmt::format("jdbc:postgresql://{}:{}@127.0.0.1/ksink_test", user_, password_),
        fmt::format("postgresql://{}:{}@127.0.0.1/ksink_test?nosuchoption=1", user_, password_)}) {
    auto props = connectorProps(password_);
    props["connection.url"] = url;
    auto bad = ksink(uniqueName("invalid"), "validate", props);
    const auto status = bad->wait(60s);
    const auto log = bad->log();
    EXPECT_TRUE(status && *status != 0) << log;
    EXPECT_NE(log.find("connection.url"), std::string::npos) << log;
    EXPECT_EQ(log.find(password_), std::string::npos) << log;
  }
}

}  // namespace
}  // namespace ksink::it
