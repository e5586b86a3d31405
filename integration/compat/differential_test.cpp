// The differential test: the same connector configurations, with the Debezium JDBC sink's class
// and keys, run by Kafka Connect 4.1.1 with the real Debezium JDBC sink 3.5.0 and by `ksink run`,
// on the same records (Connect JSON with schemas) into one PostgreSQL server; then every table
// of each case is compared — names, columns, types, defaults, nullability, order, primary key,
// and each row's values as text (table_diff.h). The cases are integration/compat/cases/*.json
// (differential_case.h); a case lists the differences ksink keeps on purpose, each explained in
// docs/configuration-compatibility.md, and the test fails on any other difference, and on a
// listed one that no longer occurs.
//
// One Connect worker and one ksink process run every case at once, each case into a PostgreSQL
// schema of its own per side; the batches of all cases are produced together, and each is
// consumed by both sides (awaitBatch) before the next is produced.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <simdjson.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "child_process.h"
#include "connect_standalone.h"
#include "debezium_source.h"
#include "differential_case.h"
#include "polling.h"
#include "table_diff.h"
#include "test_kafka.h"
#include "test_postgres.h"

namespace ksink::it {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

constexpr auto kBatchTimeout = 180s;

std::string replaceAll(std::string text, std::string_view from, std::string_view to) {
  for (size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size())
    text.replace(at, from.size(), to);
  return text;
}

// One case as both sides run it.
struct RunningCase {
  const DifferentialCase* spec;
  std::unique_ptr<PgTestSchema> connect_schema, ksink_schema;
  std::string connect_name, ksink_name;
  std::vector<std::string> topics;
  std::vector<std::string> failures;  // "<side>: connector failed: …"
  std::string connect_before;         // Connect's schema after the setup (contents())
};

class DifferentialTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = freshDir("ksink-differential");
    std::mt19937 random(std::random_device{}());
    prefix_ = fmt::format("d{}_", random() % 1000000);
    cases_ = DifferentialCase::loadAll(fs::path(KSINK_SOURCE_DIR) / "integration/compat/cases");
    ASSERT_FALSE(cases_.empty());
    pg_ = PgSourceSettings::fromUrl(TestPostgres::shared().url());
    // A database per side: the Debezium JDBC sink looks tables up by name in every schema of its
    // database, so a table of the same name that ksink made first would be taken for its own.
    connect_db_ = createDatabase("diffc_" + prefix_);
    ksink_db_ = createDatabase("diffk_" + prefix_);
    for (const auto& c : cases_) {
      RunningCase run;
      run.spec = &c;
      run.connect_schema = caseSchema(connect_db_, c.name);
      run.ksink_schema = caseSchema(ksink_db_, c.name);
      run.connect_name = "dbz_" + c.topic(prefix_);
      run.ksink_name = "ksink_" + c.topic(prefix_);
      for (const auto& suffix : c.topics) {
        run.topics.push_back(c.topic(prefix_, suffix));
        RealKafka::shared().createTopic(run.topics.back(), 1);
      }
      for (const auto& sql : c.setup)
        for (auto* schema : {run.connect_schema.get(), run.ksink_schema.get()})
          schema->exec(replaceAll(sql, "{{topic}}", run.topics.front()));
      run.connect_before = contents(*run.connect_schema);
      // 36 idle connections held through the run would leave too few of the server's 100 for
      // both connectors' tasks.
      run.connect_schema->disconnect();
      run.ksink_schema->disconnect();
      running_.push_back(std::move(run));
    }
  }

  void TearDown() override {
    if (ksink_) ksink_->signal(SIGKILL);
    if (connect_started_) connectScript("stop.sh", dir_ / "connect", {});
  }

  // A new database (kept afterwards, for post-mortems); its name.
  std::string createDatabase(const std::string& name) {
    PgTestSchema admin(TestPostgres::shared().url(), "public");
    admin.exec(fmt::format("CREATE DATABASE {}", name));
    return name;
  }

  std::string serverUrl(const std::string& db) const {
    return fmt::format("postgresql://{}@{}:{}/{}", pg_.user, pg_.host, pg_.port, db);
  }

  // A schema named after the case (a case named for a dotted topic: its dots as underscores).
  std::unique_ptr<PgTestSchema> caseSchema(const std::string& db, std::string name) {
    std::replace(name.begin(), name.end(), '.', '_');
    PgTestSchema(serverUrl(db), "public").exec(fmt::format("CREATE SCHEMA {}", name));
    return std::make_unique<PgTestSchema>(serverUrl(db), name);
  }

  // Every table of the schema with its rows, as text in a fixed order.
  static std::string contents(PgTestSchema& schema) {
    return schema
        .scalar(fmt::format(
            "SELECT coalesce(string_agg(table_name || '=' || query_to_xml(format('SELECT * FROM "
            "%I.%I t ORDER BY t::text', table_schema, table_name), false, true, '')::text, ';' "
            "ORDER BY table_name), '') FROM information_schema.tables WHERE table_schema = '{}'",
            schema.name()))
        .value_or("");
  }

  std::string jdbcUrl(const std::string& db, const PgTestSchema& schema) const {
    return fmt::format("jdbc:postgresql://{}:{}/{}?currentSchema={}", pg_.host, pg_.port, db,
                       schema.name());
  }

  // The connector's configuration, the same for both but its name and schema — unless the case
  // gives ksink a configuration of its own (ksink_config: e.g. the Confluent class's keys, to
  // check that class against the Debezium sink's tables).
  std::map<std::string, std::string> connectorConfig(const RunningCase& run, bool ksink) const {
    const bool own = ksink && !run.spec->ksink_config.empty();
    std::map<std::string, std::string> config{
        {"name", ksink ? run.ksink_name : run.connect_name},
        {"connector.class", "io.debezium.connector.jdbc.JdbcSinkConnector"},
        {"tasks.max", "1"},
        {"topics", fmt::format("{}", fmt::join(run.topics, ","))},
        {"connection.url",
         ksink ? jdbcUrl(ksink_db_, *run.ksink_schema) : jdbcUrl(connect_db_, *run.connect_schema)},
        {own ? "connection.user" : "connection.username", pg_.user},
        {"connection.password", pg_.password}};
    if (!own) {
      // c3p0's default pool (5 to 32 connections per connector) would take more connections
      // than the test server has for all cases at once; ksink ignores these keys (one
      // connection per task).
      config["connection.pool.min_size"] = "1";
      config["connection.pool.max_size"] = "2";
    }
    for (const auto& [k, v] : own ? run.spec->ksink_config : run.spec->config)
      config[k] = replaceAll(v, "{{topic}}", run.topics.front());
    return config;
  }

  void produce(size_t batch) {
    for (const auto& run : running_) {
      if (batch >= run.spec->batches.size()) continue;
      for (const auto& suffix : run.spec->topics) {
        std::vector<RealKafka::Message> messages;
        for (const auto& r : run.spec->batches[batch])
          if (r.topic == suffix) messages.push_back({0, r.key, r.value, r.headers, r.timestamp});
        if (!messages.empty())
          RealKafka::shared().produce(run.spec->topic(prefix_, suffix), messages);
      }
    }
  }

  static std::string properties(const std::map<std::string, std::string>& config) {
    std::string out;
    for (const auto& [k, v] : config) out += fmt::format("{}={}\n", k, v);
    return out;
  }

  static std::string json(const std::map<std::string, std::string>& config) {
    std::string out = "{";
    for (const auto& [k, v] : config) {
      if (out.size() > 1) out += ',';
      out += fmt::format("\"{}\":\"{}\"", k, replaceAll(replaceAll(v, "\\", "\\\\"), "\"", "\\\""));
    }
    return out + "}";
  }

  void startConnect() {
    const auto first = dir_ / "first-connector.properties";
    std::ofstream(first) << properties(connectorConfig(running_.front(), false));
    connect_started_ = true;
    connectScript("start.sh", dir_ / "connect", {RealKafka::shared().bootstrap(), first.string()},
                  {"KSINK_CONNECT_PLUGIN=jdbc", "KSINK_DEBEZIUM_HEAP=-Xms128m -Xmx768m"});
    std::ifstream in(dir_ / "connect" / "rest_url");
    std::string url;
    std::getline(in, url);
    rest_ = std::make_unique<httplib::Client>(url);
    rest_->set_read_timeout(30s);
    for (size_t i = 1; i < running_.size(); ++i) {
      const auto& run = running_[i];
      auto res = rest_->Put(fmt::format("/connectors/{}/config", run.connect_name),
                            json(connectorConfig(run, false)), "application/json");
      ASSERT_TRUE(res && (res->status == 201 || res->status == 200))
          << run.connect_name << ": " << (res ? res->body : httplib::to_string(res.error()));
    }
  }

  void startKsink() {
    const auto worker = dir_ / "ksink-worker.properties";
    std::ofstream(worker) << fmt::format(
        "bootstrap.servers={}\noffset.flush.interval.ms=1000\nlisteners=\n"
        "key.converter=org.apache.kafka.connect.json.JsonConverter\n"
        "value.converter=org.apache.kafka.connect.json.JsonConverter\n"
        "key.converter.schemas.enable=true\nvalue.converter.schemas.enable=true\n",
        RealKafka::shared().bootstrap());
    std::vector<std::string> argv{KSINK_BIN, "run", worker.string()};
    for (const auto& run : running_) {
      const auto file = dir_ / (run.ksink_name + ".properties");
      std::ofstream(file) << properties(connectorConfig(run, true));
      argv.push_back(file.string());
    }
    ksink_ = std::make_unique<ChildProcess>(argv, dir_ / "ksink.log");
  }

  // Connect's word on a connector: empty while it runs, else why not.
  std::string connectFailure(const RunningCase& run) {
    auto res = rest_->Get(fmt::format("/connectors/{}/status", run.connect_name));
    if (!res || res->status != 200) return {};
    simdjson::dom::parser parser;
    auto doc = parser.parse(res->body);
    if (doc.error()) return {};
    std::string trace;
    auto take = [&](simdjson::dom::element state) {
      std::string_view s, t;
      if (!state["state"].get(s) && s == "FAILED" && trace.empty())
        trace = state["trace"].get(t) ? "(no trace)" : std::string(t);
    };
    take(doc["connector"]);
    if (simdjson::dom::array tasks; !doc["tasks"].get(tasks))
      for (auto t : tasks) take(t);
    return trace.substr(0, trace.find('\n'));
  }

  // The offsets a group committed, summed over the case's topics (one partition each), and the
  // sum of their end offsets.
  std::pair<int64_t, int64_t> progress(const std::string& group,
                                       const std::vector<std::string>& topics) {
    int64_t committed = 0, end = 0;
    for (const auto& topic : topics) {
      end += RealKafka::shared().endOffset({topic, 0});
      const auto offsets = RealKafka::shared().committed(group, topic, 1);
      if (auto it = offsets.find({topic, 0}); it != offsets.end()) committed += it->second;
    }
    return {committed, end};
  }

  // Until both sides have consumed the batch (or a connector failed). ksink commits the offsets
  // of every record it consumed, transformed away or not, as Connect's runtime does, so its
  // groups reach the topics' ends. The Debezium JDBC sink's preCommit() reports only the records
  // it was given: a batch ending in records an SMT drops leaves those uncommitted, as many as the
  // case says (connect_uncommitted).
  void awaitBatch(size_t batch) {
    auto connectDone = [&](const RunningCase& run) {
      if (batch >= run.spec->batches.size()) return true;
      const auto [committed, end] = progress("connect-" + run.connect_name, run.topics);
      const int64_t tail =
          batch < run.spec->connect_uncommitted.size() ? run.spec->connect_uncommitted[batch] : 0;
      return committed >= end - tail;
    };
    auto ksinkDone = [&](const RunningCase& run) {
      if (batch >= run.spec->batches.size()) return true;
      const auto [committed, end] = progress("connect-" + run.ksink_name, run.topics);
      return committed == end;
    };
    const bool done = waitUntil(
        [&] {
          if (!ksink_->running()) return true;
          bool all = true;
          for (auto& run : running_) {
            if (!run.failures.empty()) continue;
            if (auto why = connectFailure(run); !why.empty()) {
              run.failures.push_back("Connect: connector failed: " + why);
              continue;
            }
            all = ksinkDone(run) && connectDone(run) && all;
          }
          return all;
        },
        kBatchTimeout, 250ms);
    ASSERT_TRUE(ksink_->running()) << "ksink exited; its errors:\n"
                                   << ksink_->errors() << "its log: " << ksink_->log();
    if (!done) {
      for (auto& run : running_)
        if (run.failures.empty() && !connectDone(run))
          ADD_FAILURE() << run.spec->name << ": Connect did not consume batch " << batch + 1;
        else if (run.failures.empty() && !ksinkDone(run))
          ADD_FAILURE() << run.spec->name << ": ksink did not consume batch " << batch + 1;
      FAIL() << "batch " << batch + 1 << " not consumed within "
             << std::chrono::duration_cast<std::chrono::seconds>(kBatchTimeout).count()
             << " s; ksink's errors:\n"
             << ksink_->errors() << "its log: " << ksink_->log();
    }
  }

  fs::path dir_;
  std::string prefix_;
  std::vector<DifferentialCase> cases_;
  std::vector<RunningCase> running_;
  PgSourceSettings pg_;
  std::string connect_db_, ksink_db_;
  bool connect_started_ = false;
  std::unique_ptr<httplib::Client> rest_;
  std::unique_ptr<ChildProcess> ksink_;
};

TEST_F(DifferentialTest, EveryCaseWritesTheTablesTheDebeziumJdbcSinkWrites) {
  size_t batches = 0;
  for (const auto& c : cases_) batches = std::max(batches, c.batches.size());
  produce(0);
  ASSERT_NO_FATAL_FAILURE(startConnect());
  startKsink();
  ASSERT_NO_FATAL_FAILURE(awaitBatch(0));
  for (size_t b = 1; b < batches; ++b) {
    produce(b);
    ASSERT_NO_FATAL_FAILURE(awaitBatch(b));
  }
  // Both stopped before the tables are read: their connections are the server's to give back.
  ksink_->signal(SIGTERM);
  EXPECT_EQ(ksink_->wait(30s), 0) << ksink_->log();
  connectScript("stop.sh", dir_ / "connect", {});
  connect_started_ = false;

  for (const auto& run : running_) {
    SCOPED_TRACE(run.spec->name);
    auto seen =
        tableDifferences({"Connect", run.connect_schema.get()}, {"ksink", run.ksink_schema.get()});
    seen.insert(seen.end(), run.failures.begin(), run.failures.end());
    for (auto& line : seen) line = replaceAll(line, prefix_, "");
    // Two sides that wrote nothing agree on nothing: a case is judged on what Connect wrote.
    EXPECT_NE(contents(*run.connect_schema), run.connect_before)
        << run.spec->name << ": Kafka Connect changed no row, so the case compares nothing";
    const std::set<std::string> expected(run.spec->differences.begin(),
                                         run.spec->differences.end());
    std::vector<std::string> unexpected, missing;
    for (const auto& line : seen)
      if (!expected.contains(line)) unexpected.push_back(line);
    for (const auto& line : expected)
      if (std::find(seen.begin(), seen.end(), line) == seen.end()) missing.push_back(line);
    EXPECT_TRUE(unexpected.empty())
        << run.spec->name << " (" << run.spec->about << "): differences not listed in the case:\n  "
        << fmt::format("{}", fmt::join(unexpected, "\n  "));
    EXPECT_TRUE(missing.empty()) << run.spec->name
                                 << ": listed differences that no longer occur:\n  "
                                 << fmt::format("{}", fmt::join(missing, "\n  "));
    run.connect_schema->disconnect();
    run.ksink_schema->disconnect();
  }
}

}  // namespace
}  // namespace ksink::it
