// Kafka Connect's REST API as the herder's health and failures make it answer: KIP-1017's /health
// while a change holds the herder, and the whole herder ending on a failure under
// exit.on.task.failure=true, as `ksink run` did before the REST API.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "rest_api_fixture.h"

namespace ksink::test {
namespace {

using namespace std::chrono_literals;

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
