// A cluster of `ksink run` processes on Kafka Connect's config topic (config.storage.topic), on a
// real broker: connectors created, paused and deleted through either process's REST API run on
// both (a SQLite sink whose tasks share the topic's partitions through the consumer group), a
// process that starts later finds them in the topic, the records are Connect's, and what a Connect
// worker wrote there (its task and commit records included) is taken over.
#include <SQLiteCpp/Database.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <librdkafka/rdkafka.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "child_process.h"
#include "free_port.h"
#include "polling.h"
#include "sqlite_query.h"
#include "test_kafka.h"
#include "topic_reader.h"

namespace ksink::it {
namespace {

using namespace std::chrono_literals;

class ClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = freshDir("cluster");
    name_ = uniqueName("cluster");
    topic_ = name_ + "-records";
    RealKafka::shared().createTopic(topic_, 2);
  }

  // A process of the cluster, its REST API on `port`.
  std::unique_ptr<ChildProcess> start(const std::string& tag, int port) {
    const auto worker = dir_ / (tag + "-worker.properties");
    std::ofstream(worker) << fmt::format(
        "bootstrap.servers={}\ngroup.id={}\nconfig.storage.topic={}-configs\n"
        "config.storage.replication.factor=1\noffset.storage.topic={}-offsets\n"
        "offset.storage.replication.factor=1\nstatus.storage.topic={}-status\n"
        "status.storage.replication.factor=1\noffset.flush.interval.ms=500\n"
        "listeners=http://127.0.0.1:{}\nconsumer.session.timeout.ms=6000\n"
        "consumer.heartbeat.interval.ms=500\n",
        RealKafka::shared().bootstrap(), name_, name_, name_, name_, port);
    auto process = std::make_unique<ChildProcess>(
        std::vector<std::string>{KSINK_BIN, "run", worker.string()}, dir_ / (tag + ".log"));
    httplib::Client client("127.0.0.1", port);
    EXPECT_TRUE(waitUntil(
        [&] {
          const auto res = client.Get("/health");
          return res && res->status == 200;
        },
        30s))
        << process->log();
    return process;
  }

  // GET `path` of the process on `port`: the body, "" when it does not answer 200.
  static std::string get(int port, const std::string& path) {
    httplib::Client client("127.0.0.1", port);
    const auto res = client.Get(path);
    return res && res->status == 200 ? res->body : "";
  }
  static int send(int port, const std::string& method, const std::string& path,
                  const std::string& body = "") {
    httplib::Client client("127.0.0.1", port);
    const auto res = method == "POST"     ? client.Post(path, body, "application/json")
                     : method == "DELETE" ? client.Delete(path)
                     : method == "PATCH"  ? client.Patch(path, body, "application/json")
                                          : client.Put(path, body, "application/json");
    return res ? res->status : -1;
  }
  // Until GET `path` on `port` has `fragment`.
  static bool shows(int port, const std::string& path, const std::string& fragment) {
    return waitUntil([&] { return get(port, path).find(fragment) != std::string::npos; }, 30s,
                     100ms);
  }

  // Writes `records` (key, value) to partition 0 of `topic` in one committed transaction.
  static void produceInTransaction(
      const std::string& topic, const std::vector<std::pair<std::string, std::string>>& records) {
    char err[512];
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    for (const auto& [k, v] :
         std::map<std::string, std::string>{{"bootstrap.servers", RealKafka::shared().bootstrap()},
                                            {"transactional.id", uniqueName("config-writer")}})
      ASSERT_EQ(rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof err), RD_KAFKA_CONF_OK)
          << err;
    std::unique_ptr<rd_kafka_t, decltype(&rd_kafka_destroy)> producer(
        rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err), rd_kafka_destroy);
    ASSERT_TRUE(producer) << err;
    const auto ok = [](rd_kafka_error_t* e) {
      if (!e) return true;
      ADD_FAILURE() << rd_kafka_error_string(e);
      rd_kafka_error_destroy(e);
      return false;
    };
    ASSERT_TRUE(ok(rd_kafka_init_transactions(producer.get(), 30000)));
    ASSERT_TRUE(ok(rd_kafka_begin_transaction(producer.get())));
    for (const auto& [key, value] : records)
      ASSERT_EQ(rd_kafka_producev(producer.get(), RD_KAFKA_V_TOPIC(topic.c_str()),
                                  RD_KAFKA_V_PARTITION(0), RD_KAFKA_V_KEY(key.data(), key.size()),
                                  RD_KAFKA_V_VALUE(const_cast<char*>(value.data()), value.size()),
                                  RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END),
                RD_KAFKA_RESP_ERR_NO_ERROR);
    ASSERT_TRUE(ok(rd_kafka_commit_transaction(producer.get(), 30000)));
  }

  std::filesystem::path dir_;
  std::string name_;
  std::string topic_;
};

TEST_F(ClusterTest, ChangesMadeThroughEitherProcessRunOnBothAndALaterProcessFindsThem) {
  const int port_a = test::freePort(), port_b = test::freePort();
  auto a = start("a", port_a);
  auto b = start("b", port_b);
  const auto db = dir_ / "rows.db";
  const std::string config =
      fmt::format(R"({{"connector.class":"sqlite","topics":"{}","connection.url":"sqlite://{}",)"
                  R"("tasks.max":"1","auto.create":"true","pk.mode":"kafka",)"
                  R"("value.converter.schemas.enable":"false","key.converter":"string"}})",
                  topic_, db.string());
  ASSERT_EQ(
      send(port_a, "POST", "/connectors", fmt::format(R"({{"name":"rows","config":{}}})", config)),
      201);
  // Applied by b from the topic: it runs the connector too, and the cluster runs its one task
  // (tasks.max), in one of the two processes, shown by both with the worker that runs it.
  EXPECT_TRUE(shows(port_b, "/connectors", R"(["rows"])")) << b->log();
  EXPECT_TRUE(shows(port_b, "/connectors/rows/status", R"("tasks":[{"id":0,"state":"RUNNING")"))
      << b->log();
  const auto runsTask = [](const ChildProcess& p) {
    return p.log().find("sink connector rows: running task 0 here") != std::string::npos;
  };
  EXPECT_TRUE(waitUntil([&] { return runsTask(*a) != runsTask(*b); }, 30s)) << a->log() << b->log();
  const auto owner =
      fmt::format(R"("tasks":[{{"id":0,"state":"RUNNING","worker_id":"127.0.0.1:{}")",
                  runsTask(*a) ? port_a : port_b);
  EXPECT_TRUE(shows(port_a, "/connectors/rows/status", owner))
      << get(port_a, "/connectors/rows/status");
  EXPECT_TRUE(shows(port_b, "/connectors/rows/status", owner))
      << get(port_b, "/connectors/rows/status");
  std::vector<RealKafka::Message> records;
  for (int i = 0; i < 40; ++i)
    records.push_back({i % 2, "k" + std::to_string(i), fmt::format(R"({{"i":{}}})", i)});
  RealKafka::shared().produce(topic_, records);
  const auto rows = [&]() -> std::string {
    try {
      return testing::queryRows(db.string(), fmt::format("SELECT count(*) FROM \"{}\"", topic_))
          .at(0)
          .at(0);
    } catch (const std::exception& e) {
      return e.what();  // not created yet
    }
  };
  EXPECT_TRUE(waitUntil([&] { return rows() == "40"; }, 60s, 200ms)) << rows() << "\n"
                                                                     << a->log() << b->log();

  // The process running the task is killed: the other runs it within the session timeout, from
  // the group's committed offsets (no row twice: pk.mode=kafka), then the killed one comes back.
  const bool a_ran = runsTask(*a);
  auto& owner_process = a_ran ? a : b;
  owner_process->signal(SIGKILL);
  owner_process->wait(30s);
  records.clear();
  for (int i = 40; i < 60; ++i)
    records.push_back({i % 2, "k" + std::to_string(i), fmt::format(R"({{"i":{}}})", i)});
  RealKafka::shared().produce(topic_, records);
  EXPECT_TRUE(waitUntil([&] { return rows() == "60"; }, 60s, 200ms)) << rows() << "\n"
                                                                     << (a_ran ? b : a)->log();
  owner_process = start(a_ran ? "a2" : "b2", a_ran ? port_a : port_b);

  // Paused through b, applied by a; deleted through a, gone from b.
  EXPECT_EQ(send(port_b, "PUT", "/connectors/rows/pause"), 202);
  EXPECT_TRUE(shows(port_a, "/connectors/rows/status", R"("connector":{"state":"PAUSED")"))
      << a->log();
  EXPECT_EQ(send(port_a, "DELETE", "/connectors/rows"), 204);
  EXPECT_TRUE(shows(port_b, "/connectors", "[]")) << b->log();

  // b stops; a connector made meanwhile is found by b when it starts again, from the topic.
  b->signal(SIGTERM);
  EXPECT_EQ(b->wait(30s), 0) << b->log();
  ASSERT_EQ(
      send(port_a, "POST", "/connectors",
           fmt::format(R"({{"name":"later","config":{},"initial_state":"STOPPED"}})", config)),
      201);
  b = start("b2", port_b);
  EXPECT_EQ(get(port_b, "/connectors"), R"(["later"])");
  EXPECT_TRUE(shows(port_b, "/connectors/later/status", R"("connector":{"state":"STOPPED")"));

  // The records are Connect's: the target state first, then the configuration.
  const auto written =
      test::readCommitted(RealKafka::shared().bootstrap(), name_ + "-configs", 0, 30s);
  ASSERT_GE(written.size(), 2u);
  EXPECT_EQ(written[written.size() - 2].key, "target-state-later");
  EXPECT_EQ(written[written.size() - 2].value, R"({"state":"PAUSED","state.v2":"STOPPED"})");
  EXPECT_EQ(written.back().key, "connector-later");
  EXPECT_TRUE(written.back().value->starts_with(R"({"properties":{"auto.create":"true",)"))
      << *written.back().value;
  for (auto* p : {a.get(), b.get()}) {
    p->signal(SIGTERM);
    EXPECT_EQ(p->wait(30s), 0) << p->log();
  }
}

// A source connector whose tasks the two processes share (worker group.id): either process shows
// both tasks, each with the worker running it, from the status topic, and restarts either where
// it runs (a request for the other's forwarded to it); a process that stops writes its task
// UNASSIGNED, and the other, given it, RUNNING under its own id.
TEST_F(ClusterTest, EitherProcessShowsTheTasksOfBoth) {
  const auto db = dir_ / "source.db";
  SQLite::Database(db.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE)
      .exec(
          "CREATE TABLE t0 (id INTEGER PRIMARY KEY, v TEXT); "
          "CREATE TABLE t1 (id INTEGER PRIMARY KEY, v TEXT)");
  const int port_a = test::freePort(), port_b = test::freePort();
  const auto id_a = fmt::format("127.0.0.1:{}", port_a), id_b = fmt::format("127.0.0.1:{}", port_b);
  auto a = start("a", port_a);
  auto b = start("b", port_b);
  ASSERT_EQ(send(port_a, "POST", "/connectors",
                 fmt::format(R"({{"name":"tables","config":{{"connector.class":)"
                             R"("io.confluent.connect.jdbc.JdbcSourceConnector","connection.url":)"
                             R"("jdbc:sqlite:{}","mode":"incrementing","topic.prefix":"{}-",)"
                             R"("poll.interval.ms":"200","tasks.max":"2"}}}})",
                             db.string(), name_)),
            201);
  // One task each once the group split them; both processes say so.
  const auto runs = [](const std::string& status, int task, const std::string& worker) {
    return status.find(fmt::format(R"({{"id":{},"state":"RUNNING","worker_id":"{}")", task,
                                   worker)) != std::string::npos;
  };
  const auto both = [&](int port) {
    const auto status = get(port, "/connectors/tables/status");
    return (runs(status, 0, id_a) && runs(status, 1, id_b)) ||
           (runs(status, 0, id_b) && runs(status, 1, id_a));
  };
  EXPECT_TRUE(waitUntil([&] { return both(port_a) && both(port_b); }, 60s, 200ms))
      << get(port_a, "/connectors/tables/status") << "\n"
      << get(port_b, "/connectors/tables/status") << a->log() << b->log();
  EXPECT_NE(get(port_b, "/connectors/tables").find(R"({"connector":"tables","task":1})"),
            std::string::npos);

  // A task restarted through either process restarts where it runs: b's through a, forwarded.
  const int of_b = runs(get(port_a, "/connectors/tables/status"), 0, id_b) ? 0 : 1;
  EXPECT_EQ(send(port_a, "POST", fmt::format("/connectors/tables/tasks/{}/restart", of_b)), 204);
  EXPECT_EQ(send(port_a, "POST", fmt::format("/connectors/tables/tasks/{}/restart", 1 - of_b)),
            204);
  const auto restarted = [](const ChildProcess& p, int task) {
    return p.log().find(fmt::format("restarting task {} here", task)) != std::string::npos;
  };
  EXPECT_TRUE(waitUntil([&] { return restarted(*b, of_b) && restarted(*a, 1 - of_b); }, 30s))
      << a->log() << b->log();
  EXPECT_FALSE(restarted(*a, of_b));
  EXPECT_TRUE(waitUntil([&] { return both(port_a); }, 30s))
      << get(port_a, "/connectors/tables/status");

  // b stops: its task runs on a, and a shows both as its own.
  b->signal(SIGTERM);
  EXPECT_EQ(b->wait(30s), 0) << b->log();
  EXPECT_TRUE(waitUntil(
      [&] {
        const auto status = get(port_a, "/connectors/tables/status");
        return runs(status, 0, id_a) && runs(status, 1, id_a);
      },
      60s, 200ms))
      << get(port_a, "/connectors/tables/status") << a->log();
  // The records are Connect's; the connector's, written UNASSIGNED by b as it stopped, is a's
  // RUNNING again.
  std::map<std::string, std::string> last;
  const auto read = [&] {
    for (int32_t p = 0; p < 5; ++p)  // status.storage.partitions
      for (const auto& r :
           test::readCommitted(RealKafka::shared().bootstrap(), name_ + "-status", p, 30s))
        if (r.key && r.value) last[*r.key] = *r.value;
    // b's task too: a's record, over what b wrote as it stopped.
    const auto moved = fmt::format("status-task-tables-{}", of_b);
    return last["status-connector-tables"].starts_with(fmt::format(
               R"({{"state":"RUNNING","trace":null,"worker_id":"{}","generation":0,)", id_a)) &&
           last[moved].starts_with(
               fmt::format(R"({{"state":"RUNNING","trace":null,"worker_id":"{}")", id_a));
  };
  EXPECT_TRUE(waitUntil(read, 10s)) << last["status-connector-tables"] << "\n"
                                    << last[fmt::format("status-task-tables-{}", of_b)];
  a->signal(SIGTERM);
  EXPECT_EQ(a->wait(30s), 0) << a->log();
}

// What a Connect 4.1 worker writes for a connector it runs — its configuration, its tasks' and
// their commit, its target state — read by a ksink process started with the cluster's topic; a
// connector of a class ksink does not serve is shown FAILED with why, and can be deleted.
TEST_F(ClusterTest, AConnectorAConnectWorkerWroteIsTakenOver) {
  const auto file = dir_ / "input.txt";
  std::ofstream(file) << "one\ntwo\n";
  const std::string properties = fmt::format(
      R"({{"connector.class":"org.apache.kafka.connect.file.FileStreamSourceConnector",)"
      R"("file":"{}","topic":"{}","tasks.max":"1","name":"connect-made"}})",
      file.string(), topic_);
  RealKafka::shared().createTopic(name_ + "-configs", 1, {{"cleanup.policy", "compact"}});
  // In one transaction, as a Connect leader with exactly-once sources writes its config topic: the
  // topic ends with a commit marker no consumer is handed.
  produceInTransaction(
      name_ + "-configs",
      {{"target-state-connect-made", R"({"state":"PAUSED","state.v2":"PAUSED"})"},
       {"connector-connect-made", fmt::format(R"({{"properties":{}}})", properties)},
       {"task-connect-made-0", fmt::format(R"({{"properties":{}}})", properties)},
       {"commit-connect-made", R"({"tasks":1})"},
       {"target-state-java-only", R"({"state":"PAUSED","state.v2":"STOPPED"})"},
       {"connector-java-only",
        R"({"properties":{"connector.class":"com.example.JavaOnlyConnector","name":"java-only"}})"},
       {"connector-java-two",
        R"({"properties":{"connector.class":"com.example.JavaOnlyConnector","name":"java-two"}})"},
       {"session-key", R"({"key":"a2V5","algorithm":"HmacSHA256","creation-timestamp":1})"}});
  const int port = test::freePort();
  auto ksink = start("takeover", port);
  EXPECT_EQ(get(port, "/connectors"), R"(["connect-made","java-only","java-two"])") << ksink->log();
  // A class ksink does not serve: kept, FAILED, saying why, as Connect shows a missing plugin.
  const auto refused = get(port, "/connectors/java-only/status");
  EXPECT_NE(refused.find(R"("connector":{"state":"FAILED")"), std::string::npos) << refused;
  EXPECT_NE(refused.find("ksink does not run this connector"), std::string::npos) << refused;
  EXPECT_NE(refused.find("com.example.JavaOnlyConnector"), std::string::npos) << refused;
  // Given a class ksink serves, it runs — in the target state Connect wrote for it: STOPPED.
  EXPECT_EQ(send(port, "PUT", "/connectors/java-only/config",
                 fmt::format(R"({{"connector.class":"FileStreamSource","file":"{}","topic":"{}"}})",
                             file.string(), topic_)),
            200);
  EXPECT_TRUE(shows(port, "/connectors/java-only/status", R"("connector":{"state":"STOPPED")"))
      << get(port, "/connectors/java-only/status");
  EXPECT_EQ(send(port, "DELETE", "/connectors/java-only"), 204);
  // Another: a restart cannot help it (409, saying why); patched with a class ksink serves, it
  // runs.
  EXPECT_EQ(send(port, "POST", "/connectors/java-two/restart"), 409);
  std::ofstream(dir_ / "two.txt") << "";
  EXPECT_EQ(send(port, "PATCH", "/connectors/java-two/config",
                 fmt::format(R"({{"connector.class":"FileStreamSource","file":"{}","topic":"{}"}})",
                             (dir_ / "two.txt").string(), topic_ + "-two")),
            200);
  EXPECT_TRUE(shows(port, "/connectors/java-two/status", R"("connector":{"state":"RUNNING")"))
      << get(port, "/connectors/java-two/status");
  EXPECT_EQ(send(port, "DELETE", "/connectors/java-two"), 204);
  EXPECT_EQ(get(port, "/connectors"), R"(["connect-made"])");
  EXPECT_TRUE(shows(port, "/connectors/connect-made/status", R"("connector":{"state":"PAUSED")"))
      << ksink->log();
  EXPECT_EQ(send(port, "PUT", "/connectors/connect-made/resume"), 202);
  EXPECT_TRUE(waitUntil(
      [&] {
        return RealKafka::shared().endOffset({topic_, 0}) +
                   RealKafka::shared().endOffset({topic_, 1}) ==
               2;
      },
      30s))
      << ksink->log();
  ksink->signal(SIGTERM);
  EXPECT_EQ(ksink->wait(30s), 0) << ksink->log();
}

}  // namespace
}  // namespace ksink::it
