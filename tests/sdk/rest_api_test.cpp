// Kafka Connect's REST API as `ksink run` serves it (Herder + rest_api), on the embedded broker:
// two sink connectors read from connector files, queried and controlled over HTTP — Connect's
// routes, codes and bodies; one connector whose task fails while the other runs on, and a task
// restart that brings it back; pause, resume, stop and restart; and, with exit.on.task.failure,
// the whole herder ending on a failure as `ksink run` did before.
#include "rest_api.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "connector_file.h"
#include "herder.h"
#include "ksink/connector_registry.h"
#include "status_server.h"
#include "support/mock_cluster.h"
#include "support/polling.h"
#include "support/recording_sink.h"
#include "support/worker_runner.h"

namespace ksink::test {
namespace {

using namespace std::chrono_literals;

// Two sink connectors, "alpha" and "beta", each on a topic of its own with `kRecords` records,
// run by a Herder whose routes a StatusServer serves on a free port.
class RestApi : public ::testing::Test {
 protected:
  static constexpr int kRecords = 20;

  void SetUp() override {
    ConnectorRegistry::global().add(
        {"rest-test-sink", RecordingSink::factory(log, script), ConfigDef(), "REST API test"});
    // A sink whose tasks cannot be made while `failing_start` is set: its connector fails.
    ConnectorRegistry::global().add(
        {"rest-test-unstartable-sink",
         [this, make = RecordingSink::factory(log, script)]() -> std::unique_ptr<SinkTask> {
           if (failing_start) throw std::runtime_error("the sink's tasks cannot be made");
           return make();
         },
         ConfigDef(), "REST API test"});
    script->onPut([this](SinkTaskContext&, std::span<const SinkRecord> records) {
      for (const auto& r : records)
        if (r.topic() == alpha && failing_alpha) throw std::runtime_error("alpha's write failed");
    });
    for (const auto* topic : {&alpha, &beta}) {
      mock.createTopic(*topic, 1);
      mock.produceValues(*topic, 0, kRecords);
    }
    dir = std::filesystem::temp_directory_path() / ("ksink-" + alpha);
    std::filesystem::create_directories(dir);
    worker = mockWorkerProperties("unused", "unused", mock.bootstrap());
    worker.erase("name");
    worker.erase("topics");
    worker["config.providers"] = "env";
    worker["config.providers.env.class"] =
        "org.apache.kafka.common.config.provider.EnvVarConfigProvider";
    ::setenv("KSINK_REST_TEST_TOPIC", beta.c_str(), 1);
  }

  void TearDown() override {
    server.reset();
    if (herder) {
      herder->stopAll();
      herder->wait();
    }
    std::filesystem::remove_all(dir);
  }

  // `exit_on_failure`: the worker file's exit.on.task.failure; `state_dir`: its state.dir.
  void start(bool exit_on_failure = false, const std::filesystem::path& state_dir = {}) {
    worker["exit.on.task.failure"] = exit_on_failure ? "true" : "false";
    herder = std::make_unique<Herder>(
        exit_on_failure,
        [this](const std::map<std::string, std::string>& submitted) {
          return loadConnector(worker, submitted, "the REST API");
        },
        state_dir);
    // beta names its topic through the env provider: GET …/config shows the reference.
    addConnector(alpha, alpha);
    addConnector(beta, "${env:KSINK_REST_TEST_TOPIC}");
    server = std::make_unique<StatusServer>(
        "http://127.0.0.1:0", [this] { return herder->statuses(); },
        [this](httplib::Server& http, const std::string& worker_id) {
          addConnectRoutes(
              http, *herder,
              {worker_id, [] { return std::string("test-cluster"); }, worker, health_timeout});
        });
    client = std::make_unique<httplib::Client>("127.0.0.1", server->port());
    herder->restore();
    herder->start();
  }

  void addConnector(const std::string& name, const std::string& topics) {
    const auto file = dir / (name + ".properties");
    std::ofstream(file) << fmt::format("name={}\nconnector.class=rest-test-sink\ntopics={}\n", name,
                                       topics);
    herder->add(loadConnector(worker, file.string()));
  }

  std::string get(const std::string& path, int expected_status = 200) {
    auto res = client->Get(path);
    EXPECT_TRUE(res) << path;
    if (!res) return "";
    EXPECT_EQ(res->status, expected_status) << path << ": " << res->body;
    return res->body;
  }
  int send(const std::string& method, const std::string& path, std::string* body = nullptr,
           const std::string& request = "") {
    httplib::Result res = method == "PUT"      ? client->Put(path, request, "application/json")
                          : method == "PATCH"  ? client->Patch(path, request, "application/json")
                          : method == "DELETE" ? client->Delete(path)
                                               : client->Post(path, request, "application/json");
    if (!res) return -1;
    if (body) *body = res->body;
    return res->status;
  }
  // Until GET `path` has `fragment` in its body.
  bool awaitBody(const std::string& path, const std::string& fragment) {
    return it::waitUntil(
        [&] {
          auto res = client->Get(path);
          return res && res->body.find(fragment) != std::string::npos;
        },
        30s, 50ms);
  }
  int64_t committed(const std::string& topic, int64_t offset) {
    return mock.waitForCommitted("connect-" + topic, {topic, 0}, offset, 30s).value_or(-1);
  }

  MockCluster mock;
  std::shared_ptr<CallLog> log = std::make_shared<CallLog>();
  std::shared_ptr<SinkScript> script = std::make_shared<SinkScript>();
  std::atomic<bool> failing_alpha{false};
  std::atomic<bool> failing_start{false};
  const std::string alpha = currentTestName() + "-alpha";
  const std::string beta = currentTestName() + "-beta";
  std::filesystem::path dir;
  Properties worker;
  std::unique_ptr<Herder> herder;
  std::unique_ptr<StatusServer> server;
  std::unique_ptr<httplib::Client> client;
  std::chrono::milliseconds health_timeout{10000};
};

std::string runningStatus(const std::string& name, const std::string& worker_id) {
  return fmt::format(
      R"({{"name":"{}","connector":{{"state":"RUNNING","worker_id":"{}","version":"{}"}},)"
      R"("tasks":[{{"id":0,"state":"RUNNING","worker_id":"{}","version":"{}"}}],"type":"sink"}})",
      name, worker_id, KSINK_VERSION_FOR_TESTS, worker_id, KSINK_VERSION_FOR_TESTS);
}

TEST_F(RestApi, ReadRoutesAnswerConnectsBodies) {
  start();
  const auto worker_id = fmt::format("127.0.0.1:{}", server->port());
  EXPECT_EQ(committed(alpha, kRecords), kRecords);
  EXPECT_EQ(committed(beta, kRecords), kRecords);

  EXPECT_EQ(get("/"), fmt::format(R"({{"version":"4.1.1","commit":"ksink-{}",)"
                                  R"("kafka_cluster_id":"test-cluster"}})",
                                  KSINK_VERSION_FOR_TESTS));
  EXPECT_EQ(get("/health"),
            R"({"status":"healthy","message":"Worker has completed startup and is ready to )"
            R"(handle requests."})");
  EXPECT_EQ(get("/connectors"),
            fmt::format(R"(["{}","{}"])", std::min(alpha, beta), std::max(alpha, beta)));
  ASSERT_TRUE(
      awaitBody("/connectors/" + alpha + "/status", R"("tasks":[{"id":0,"state":"RUNNING")"));
  EXPECT_EQ(get("/connectors/" + alpha + "/status"), runningStatus(alpha, worker_id));
  EXPECT_EQ(get("/connectors/" + beta + "/config"),
            fmt::format(R"({{"connector.class":"rest-test-sink","name":"{}",)"
                        R"("topics":"${{env:KSINK_REST_TEST_TOPIC}}"}})",
                        beta))
      << "the configuration as submitted, its reference not resolved";
  EXPECT_EQ(get("/connectors/" + alpha),
            fmt::format(R"({{"name":"{0}","config":{{"connector.class":"rest-test-sink",)"
                        R"("name":"{0}","topics":"{0}"}},"tasks":[{{"connector":"{0}","task":0}}],)"
                        R"("type":"sink"}})",
                        alpha));
  EXPECT_EQ(get("/connectors/" + alpha + "/tasks"),
            fmt::format(R"([{{"id":{{"connector":"{0}","task":0}},"config":{{"connector.class":)"
                        R"("rest-test-sink","name":"{0}","topics":"{0}"}}}}])",
                        alpha));
  EXPECT_EQ(get("/connectors/" + alpha + "/tasks/0/status"),
            fmt::format(R"({{"id":0,"state":"RUNNING","worker_id":"{}","version":"{}"}})",
                        worker_id, KSINK_VERSION_FOR_TESTS));
  const auto expanded = get("/connectors?expand=status&expand=info");
  EXPECT_NE(
      expanded.find(fmt::format(R"("{}":{{"status":{})", alpha, runningStatus(alpha, worker_id))),
      std::string::npos)
      << expanded;
  EXPECT_NE(get("/connector-plugins").find(R"({"class":"rest-test-sink","type":"sink",)"),
            std::string::npos);

  EXPECT_EQ(get("/connectors/nobody", 404),
            R"({"error_code":404,"message":"Connector nobody not found"})");
  EXPECT_EQ(
      get("/connectors/" + alpha + "/tasks/3/status", 404),
      fmt::format(R"({{"error_code":404,"message":"No status found for task {}-3"}})", alpha));
  // A plugin's keys and a configuration validated, in Connect's ConfigKeyInfo and ConfigInfos.
  EXPECT_NE(get("/connector-plugins/rest-test-sink/config")
                .find(R"({"name":"bootstrap.servers","type":"STRING","required":true,)"
                      R"("default_value":null,"importance":"HIGH",)"),
            std::string::npos);
  get("/connector-plugins/no-such-plugin/config", 404);
  std::string infos;
  EXPECT_EQ(send("PUT", "/connector-plugins/rest-test-sink/config/validate", &infos,
                 R"({"name":"v","topics":"t","tasks.max":"zero"})"),
            200);
  EXPECT_NE(infos.find(R"({"name":"rest-test-sink","error_count":1,"groups":[],"configs":[)"),
            std::string::npos)
      << infos;
  EXPECT_NE(infos.find(R"("value":{"name":"tasks.max","value":"zero","recommended_values":[],)"
                       R"("errors":["'zero' is not a 32-bit integer"],"visible":true})"),
            std::string::npos)
      << infos;
  EXPECT_EQ(send("PUT", "/connector-plugins/rest-test-sink/config/validate", &infos,
                 R"({"connector.class":"other"})"),
            400)
      << infos;

  // The log level, changed at run time.
  EXPECT_EQ(send("PUT", "/admin/loggers/root", &infos, R"({"level":"warn"})"), 200);
  EXPECT_EQ(infos, R"(["root"])");
  EXPECT_EQ(get("/admin/loggers"), R"({"root":{"level":"WARN"}})");
  EXPECT_EQ(send("PUT", "/admin/loggers/root", &infos, R"({"level":"loud"})"), 400);
  EXPECT_EQ(send("PUT", "/admin/loggers/root", &infos, R"({"level":"INFO"})"), 200);
  EXPECT_EQ(get("/admin/loggers/root"), R"({"level":"INFO"})");
  get("/admin/loggers/org.apache.kafka", 404);

  EXPECT_EQ(get("/no/such/route", 404),
            R"({"error_code":404,"message":"HTTP 404 GET /no/such/route"})");
}

TEST_F(RestApi, AFailedTaskLeavesTheOtherConnectorRunningAndARestartBringsItBack) {
  failing_alpha = true;
  start();
  ASSERT_TRUE(awaitBody("/connectors/" + alpha + "/status", R"("state":"FAILED")"));
  const auto failed = get("/connectors/" + alpha + "/tasks/0/status");
  EXPECT_NE(failed.find(R"("trace":"alpha's write failed")"), std::string::npos) << failed;
  EXPECT_NE(get("/connectors/" + alpha + "/status").find(R"("connector":{"state":"RUNNING")"),
            std::string::npos)
      << "the task failed, not the connector";
  // beta runs on: what is produced now is committed.
  EXPECT_EQ(committed(beta, kRecords), kRecords);
  mock.produceValues(beta, 0, 5);
  EXPECT_EQ(committed(beta, kRecords + 5), kRecords + 5);
  EXPECT_EQ(mock.committed("connect-" + alpha, TopicPartition{alpha, 0}).value_or(0), 0)
      << "nothing committed past the record that was not written";

  failing_alpha = false;
  EXPECT_EQ(send("POST", "/connectors/" + alpha + "/tasks/0/restart"), 204);
  EXPECT_EQ(committed(alpha, kRecords), kRecords) << "the restarted task wrote every record";
  EXPECT_TRUE(
      awaitBody("/connectors/" + alpha + "/status", R"("tasks":[{"id":0,"state":"RUNNING")"));
  EXPECT_EQ(send("POST", "/connectors/" + alpha + "/tasks/9/restart"), 404);
}

TEST_F(RestApi, AConnectorThatCannotStartIsFailedAndARestartStartsIt) {
  start();
  const auto gamma = currentTestName() + "-gamma";
  mock.createTopic(gamma, 1);
  mock.produceValues(gamma, 0, kRecords);
  failing_start = true;
  EXPECT_EQ(send("POST", "/connectors", nullptr,
                 fmt::format(R"({{"name":"{0}","config":{{"connector.class":)"
                             R"("rest-test-unstartable-sink","topics":"{0}"}}}})",
                             gamma)),
            201);
  const auto status = "/connectors/" + gamma + "/status";
  ASSERT_TRUE(awaitBody(status, R"("connector":{"state":"FAILED")")) << get(status);
  EXPECT_NE(get(status).find(R"("trace":"the sink's tasks cannot be made")"), std::string::npos)
      << get(status);
  EXPECT_EQ(mock.committed("connect-" + gamma, TopicPartition{gamma, 0}), std::nullopt);

  failing_start = false;
  EXPECT_EQ(send("POST", "/connectors/" + gamma + "/restart"), 204);
  EXPECT_EQ(committed(gamma, kRecords), kRecords) << "started again, it wrote every record";
  EXPECT_TRUE(awaitBody(status, R"("connector":{"state":"RUNNING")")) << get(status);
}

TEST_F(RestApi, PauseResumeStopAndRestartAnswerConnectsCodes) {
  start();
  const auto status = "/connectors/" + alpha + "/status";
  EXPECT_EQ(committed(alpha, kRecords), kRecords);
  EXPECT_EQ(send("PUT", "/connectors/" + alpha + "/pause"), 202);
  EXPECT_TRUE(awaitBody(status, R"("tasks":[{"id":0,"state":"PAUSED")")) << get(status);
  EXPECT_NE(get(status).find(R"("connector":{"state":"PAUSED")"), std::string::npos);
  EXPECT_EQ(send("PUT", "/connectors/" + alpha + "/resume"), 202);
  EXPECT_TRUE(awaitBody(status, R"("tasks":[{"id":0,"state":"RUNNING")")) << get(status);

  EXPECT_EQ(send("PUT", "/connectors/" + alpha + "/stop"), 204);
  EXPECT_NE(get(status).find(R"("connector":{"state":"STOPPED")"), std::string::npos);
  EXPECT_NE(get(status).find(R"("tasks":[])"), std::string::npos);
  std::string refused;
  EXPECT_EQ(send("POST", "/connectors/" + alpha + "/restart", &refused), 409);
  EXPECT_NE(refused.find(R"("error_code":409)"), std::string::npos) << refused;
  // Records produced while it was stopped are written once it runs again.
  mock.produceValues(alpha, 0, 5);
  EXPECT_EQ(send("PUT", "/connectors/" + alpha + "/resume"), 202);
  EXPECT_EQ(committed(alpha, kRecords + 5), kRecords + 5);

  EXPECT_EQ(send("POST", "/connectors/" + alpha + "/restart"), 204);
  std::string restarted;
  EXPECT_EQ(send("POST", "/connectors/" + alpha + "/restart?includeTasks=true", &restarted), 202);
  EXPECT_NE(restarted.find(fmt::format(R"({{"name":"{}","connector":{{"state":"RUNNING")", alpha)),
            std::string::npos)
      << restarted;
  EXPECT_EQ(send("PUT", "/connectors/nobody/pause"), 404);
}

TEST_F(RestApi, ConnectorsAreCreatedReconfiguredAndDeletedWhileTheOthersRun) {
  start();
  const auto gamma = currentTestName() + "-gamma";
  mock.createTopic(gamma, 1);
  mock.produceValues(gamma, 0, kRecords);
  const auto config = fmt::format(R"({{"connector.class":"rest-test-sink","topics":"{}"}})", gamma);
  std::string body;
  EXPECT_EQ(send("POST", "/connectors", &body,
                 fmt::format(R"({{"name":"{}","config":{}}})", gamma, config)),
            201);
  EXPECT_EQ(body, fmt::format(R"({{"name":"{0}","config":{{"connector.class":"rest-test-sink",)"
                              R"("name":"{0}","topics":"{0}"}},"tasks":[],"type":"sink"}})",
                              gamma))
      << "Connect's ConnectorInfo, the tasks not started yet";
  EXPECT_EQ(committed(gamma, kRecords), kRecords) << "the new connector wrote every record";
  EXPECT_EQ(send("POST", "/connectors", &body,
                 fmt::format(R"({{"name":"{}","config":{}}})", gamma, config)),
            409);
  EXPECT_EQ(body,
            fmt::format(R"({{"error_code":409,"message":"Connector {} already exists"}})", gamma));
  EXPECT_EQ(send("POST", "/connectors", &body,
                 R"({"name":"refused","config":{"connector.class":"no-such-sink","topics":"x"}})"),
            400);
  EXPECT_NE(body.find("Connector configuration is invalid and contains the following 1 error(s):"
                      R"(\nconnector.class: unknown connector)"
                      " 'no-such-sink'"),
            std::string::npos)
      << body;
  EXPECT_EQ(send("POST", "/connectors", &body, "not json"), 400) << body;

  // A new configuration: the tasks start again on it (two now).
  EXPECT_EQ(
      send("PUT", "/connectors/" + gamma + "/config", &body,
           fmt::format(R"({{"connector.class":"rest-test-sink","topics":"{}","tasks.max":2}})",
                       gamma)),
      200)
      << body;
  EXPECT_TRUE(awaitBody("/connectors/" + gamma, R"("tasks":[{"connector":")" + gamma +
                                                    R"(","task":0},{"connector":")" + gamma +
                                                    R"(","task":1}])"));
  EXPECT_NE(get("/connectors/" + gamma + "/config").find(R"("tasks.max":"2")"), std::string::npos);
  EXPECT_EQ(send("PATCH", "/connectors/" + gamma + "/config", &body, R"({"tasks.max":null})"), 200)
      << body;
  EXPECT_EQ(get("/connectors/" + gamma + "/config").find("tasks.max"), std::string::npos)
      << "a null removes the key";
  EXPECT_EQ(send("PUT", "/connectors/" + gamma + "-put/config", &body,
                 fmt::format(R"({{"connector.class":"rest-test-sink","topics":"{}"}})", gamma)),
            201)
      << "PUT creates a connector it does not find";
  EXPECT_EQ(send("POST", "/connectors", &body,
                 fmt::format(R"({{"name":"{}-paused","config":{},"initial_state":"PAUSED"}})",
                             gamma, config)),
            201);
  EXPECT_TRUE(
      awaitBody("/connectors/" + gamma + "-paused/status", R"("connector":{"state":"PAUSED")"));

  EXPECT_EQ(send("DELETE", "/connectors/" + gamma), 204);
  EXPECT_EQ(get("/connectors/" + gamma, 404),
            fmt::format(R"({{"error_code":404,"message":"Connector {} not found"}})", gamma));
  EXPECT_EQ(get("/connectors").find("\"" + gamma + "\""), std::string::npos);
  // beta ran on meanwhile.
  mock.produceValues(beta, 0, 5);
  EXPECT_EQ(committed(beta, kRecords + 5), kRecords + 5);
}

TEST_F(RestApi, WhatTheRestApiChangedIsKeptInTheStateDirectoryAcrossARestart) {
  const auto state = dir / "state";
  start(false, state);
  const auto gamma = currentTestName() + "-gamma";
  mock.createTopic(gamma, 1);
  const auto gamma_config =
      fmt::format(R"({{"connector.class":"rest-test-sink","name":"{0}","topics":"{0}"}})", gamma);
  EXPECT_EQ(send("POST", "/connectors", nullptr,
                 fmt::format(R"({{"name":"{}","config":{}}})", gamma, gamma_config)),
            201);
  EXPECT_EQ(send("PUT", "/connectors/" + alpha + "/stop"), 204);
  EXPECT_EQ(send("DELETE", "/connectors/" + beta), 204);

  // The process restarts with the same connector files and state directory.
  server.reset();
  herder->stopAll();
  EXPECT_EQ(herder->wait(), 0);
  herder.reset();
  start(false, state);
  EXPECT_EQ(get("/connectors"),
            fmt::format(R"(["{}","{}"])", std::min(alpha, gamma), std::max(alpha, gamma)))
      << "beta stays deleted, gamma is back";
  EXPECT_EQ(get("/connectors/" + gamma + "/config"), gamma_config);
  EXPECT_TRUE(
      awaitBody("/connectors/" + gamma + "/status", R"("tasks":[{"id":0,"state":"RUNNING")"));
  EXPECT_NE(get("/connectors/" + alpha + "/status").find(R"("connector":{"state":"STOPPED")"),
            std::string::npos)
      << "alpha stays stopped";
}

// (Changing them is tested on a real broker, integration/sdk/status_listener_test: the embedded
// broker has no group admin API.)
TEST_F(RestApi, ASinksOffsetsAreShownAndNotChangedWhileItRuns) {
  start();
  const auto path = "/connectors/" + alpha + "/offsets";
  EXPECT_EQ(committed(alpha, kRecords), kRecords);
  EXPECT_EQ(get(path), fmt::format(R"({{"offsets":[{{"partition":{{"kafka_topic":"{}",)"
                                   R"("kafka_partition":0}},"offset":{{"kafka_offset":{}}}}}]}})",
                                   alpha, kRecords));
  std::string body;
  EXPECT_EQ(send("PATCH", path, &body,
                 fmt::format(R"({{"offsets":[{{"partition":{{"kafka_topic":"{}",)"
                             R"("kafka_partition":0}},"offset":{{"kafka_offset":5}}}}]}})",
                             alpha)),
            409)
      << body;
  EXPECT_NE(body.find("must be in the STOPPED state"), std::string::npos) << body;
  EXPECT_EQ(send("DELETE", path, &body), 409) << body;
  get("/connectors/nobody/offsets", 404);
}

// KIP-558: a connector's active topics — those its tasks consumed records of — kept across a stop
// and a resume (a new Worker), emptied by a reset until records come again, and forgotten with the
// connector; as in Connect, a connector not run here has none. Refused (403) under the worker's
// topic.tracking.allow.reset=false.
TEST_F(RestApi, ActiveTopicsAreShownKeptAcrossAStopResetAndUsedAgain) {
  start();
  const auto topics = [&](const std::string& name, const std::string& list) {
    return fmt::format(R"({{"{}":{{"topics":[{}]}}}})", name, list);
  };
  const auto quoted = fmt::format(R"("{}")", alpha);
  ASSERT_EQ(committed(alpha, kRecords), kRecords);
  EXPECT_EQ(get("/connectors/" + alpha + "/topics"), topics(alpha, quoted));
  EXPECT_EQ(send("PUT", "/connectors/" + alpha + "/stop"), 204);
  EXPECT_EQ(get("/connectors/" + alpha + "/topics"), topics(alpha, quoted)) << "kept while stopped";
  EXPECT_EQ(send("PUT", "/connectors/" + alpha + "/resume"), 202);
  EXPECT_EQ(get("/connectors/" + alpha + "/topics"), topics(alpha, quoted)) << "and resumed";

  EXPECT_EQ(send("PUT", "/connectors/" + alpha + "/topics/reset"), 202);
  EXPECT_EQ(get("/connectors/" + alpha + "/topics"), topics(alpha, ""));
  mock.produceValues(alpha, 0, 1, "v", kRecords);
  EXPECT_TRUE(awaitBody("/connectors/" + alpha + "/topics", quoted)) << "used again";
  EXPECT_EQ(get("/connectors/" + beta + "/topics"), topics(beta, fmt::format(R"("{}")", beta)));
  EXPECT_EQ(get("/connectors/nobody/topics"), topics("nobody", ""));

  EXPECT_EQ(send("DELETE", "/connectors/" + alpha), 204);
  EXPECT_EQ(get("/connectors/" + alpha + "/topics"), topics(alpha, "")) << "forgotten";

  server.reset();
  herder->stopAll();
  herder->wait();
  worker["topic.tracking.allow.reset"] = "false";
  start();
  std::string body;
  EXPECT_EQ(send("PUT", "/connectors/" + beta + "/topics/reset", &body), 403);
  EXPECT_EQ(body, R"({"error_code":403,"message":"Topic tracking reset is disabled."})");
}

// KIP-1017's health: 500 while a change holds the herder past the timeout (a deletion whose
// task's stop hangs), healthy again once it is done.
TEST_F(RestApi, HealthIsUnhealthyWhileAChangeHoldsTheHerder) {
  // Shared with the hook, which the other connector's stop runs after the test's body.
  struct Gate {
    std::mutex mutex;
    std::condition_variable released;
    bool release = false;
    std::atomic<bool> stopping{false};
  };
  auto gate = std::make_shared<Gate>();
  script->onStop([gate] {
    gate->stopping = true;
    std::unique_lock lock(gate->mutex);
    gate->released.wait_for(lock, 30s, [&] { return gate->release; });
  });
  health_timeout = 200ms;
  start();
  EXPECT_NE(get("/health").find(R"("status":"healthy")"), std::string::npos);
  std::thread deletion([this] {
    httplib::Client other("127.0.0.1", server->port());
    const auto res = other.Delete("/connectors/" + alpha);
    EXPECT_TRUE(res && res->status == 204);
  });
  EXPECT_TRUE(it::waitUntil([&] { return gate->stopping.load(); }, 30s));
  EXPECT_NE(get("/health", 500).find(R"("status":"unhealthy")"), std::string::npos);
  {
    std::lock_guard lock(gate->mutex);
    gate->release = true;
  }
  gate->released.notify_all();
  deletion.join();
  EXPECT_NE(get("/health").find(R"("status":"healthy")"), std::string::npos);
}

TEST_F(RestApi, WithExitOnTaskFailureAFailureEndsEveryConnectorAndTheHerderFails) {
  failing_alpha = true;
  start(/*exit_on_failure=*/true);
  BackgroundRun run([&] { EXPECT_EQ(herder->wait(), 1); });
  ASSERT_TRUE(run.waitFinished(30s));
  EXPECT_NE(get("/connectors/" + beta + "/status").find(R"("tasks":[{"id":0,"state":"UNASSIGNED")"),
            std::string::npos)
      << "the other connector was stopped: its task runs nowhere, as Connect shows it\n"
      << get("/connectors/" + beta + "/status");
  EXPECT_NE(get("/status").find(R"("state":"STOPPED")"), std::string::npos)
      << "ksink's own /status says how it ended";
  server.reset();
  herder.reset();  // waited for already
}

}  // namespace
}  // namespace ksink::test
