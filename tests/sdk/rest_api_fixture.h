// The REST API tests' fixture: two sink connectors, "alpha" and "beta", on the embedded broker, run
// by a Herder whose routes (Kafka Connect's REST API) a StatusServer serves on a free port.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "connector_file.h"
#include "herder.h"
#include "ksink/connector_registry.h"
#include "rest_api.h"
#include "status_server.h"
#include "support/mock_cluster.h"
#include "support/polling.h"
#include "support/recording_sink.h"
#include "support/worker_runner.h"

namespace ksink::test {

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

}  // namespace ksink::test
