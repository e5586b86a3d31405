// Herder::connectorsStarted(), what `ksink run` waits for before it tells systemd READY=1: every
// connector's tasks run here. A source of a standalone worker (no group.id) runs its own tasks, so
// it counts only once they run — not as a connector whose tasks other processes may hold.
#include <gtest/gtest.h>

#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <thread>

#include "connector_file.h"
#include "herder.h"
#include "ksink/connector_registry.h"
#include "ksink/source_connector.h"
#include "support/mock_cluster.h"
#include "support/polling.h"
#include "support/worker_runner.h"

namespace ksink::test {
namespace {

using namespace std::chrono_literals;

// Held in start() until the test opens it.
struct Gate {
  std::mutex mutex;
  std::condition_variable changed;
  bool entered = false;
  bool open = false;

  void release() {
    {
      std::lock_guard lock(mutex);
      open = true;
    }
    changed.notify_all();
  }
};

// The test's files, removed however the test ends.
struct ScratchDir {
  explicit ScratchDir(std::filesystem::path p) : path(std::move(p)) {
    std::filesystem::create_directories(path);
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  const std::filesystem::path path;
};

// Opens the gate when the test ends early (a failed ASSERT), so the herder's stop is not held.
struct ReleaseOnExit {
  ~ReleaseOnExit() { gate.release(); }
  Gate& gate;
};

class GatedSource final : public SourceTask {
 public:
  explicit GatedSource(std::shared_ptr<Gate> gate) : gate_(std::move(gate)) {}
  void start(const Config&) override {
    std::unique_lock lock(gate_->mutex);
    gate_->entered = true;
    gate_->changed.notify_all();
    gate_->changed.wait_for(lock, 30s, [&] { return gate_->open; });
  }
  std::vector<SourceRecord> poll() override {
    std::this_thread::sleep_for(10ms);
    return {};
  }
  void stop() override {}

 private:
  std::shared_ptr<Gate> gate_;
};

TEST(HerderReadyTest, AStandaloneSourceCountsAsStartedOnlyOnceItsTaskRuns) {
  MockCluster mock;
  auto gate = std::make_shared<Gate>();
  addSourceConnector(ConnectorRegistry::global(),
                     {"herder-ready-gated-source",
                      [gate] { return std::make_unique<GatedSource>(gate); }, ConfigDef(), "test"});
  const ScratchDir scratch(std::filesystem::temp_directory_path() / ("ksink-" + currentTestName()));
  const auto& dir = scratch.path;
  const std::map<std::string, std::string> worker{
      {"bootstrap.servers", mock.bootstrap()},
      {"offset.storage.file.filename", (dir / "offsets").string()}};
  std::ofstream(dir / "gated.properties")
      << "name=gated\nconnector.class=herder-ready-gated-source\n";
  Herder herder(false, [&](const std::map<std::string, std::string>& submitted) {
    return loadConnector(worker, submitted, "the REST API");
  });
  const ReleaseOnExit release{*gate};
  herder.add(loadConnector(worker, (dir / "gated.properties").string()));
  EXPECT_FALSE(herder.connectorsStarted()) << "before start()";
  herder.start();
  {
    std::unique_lock lock(gate->mutex);
    ASSERT_TRUE(gate->changed.wait_for(lock, 30s, [&] { return gate->entered; }));
  }
  EXPECT_FALSE(herder.connectorsStarted()) << "its task's start() has not returned";
  gate->release();
  EXPECT_TRUE(it::waitUntil([&] { return herder.connectorsStarted(); }, 30s));
  herder.stopAll();
  EXPECT_EQ(herder.wait(), 0);
}

}  // namespace
}  // namespace ksink::test
