// Kafka Connect's REST API as `ksink run` serves it (Herder + rest_api), on the embedded broker:
// two sink connectors read from connector files, queried and controlled over HTTP — Connect's
// routes, codes and bodies; one connector whose task fails while the other runs on, and a task
// restart that brings it back; pause, resume, stop and restart; creations, changes, deletions, the
// state directory, a sink's offsets and its active topics (rest_api_health_test.cpp: the rest).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "rest_api_fixture.h"

namespace ksink::test {
namespace {

using namespace std::chrono_literals;

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
}  // namespace
}  // namespace ksink::test
