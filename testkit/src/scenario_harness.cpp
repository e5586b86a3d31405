#include "scenario_harness.h"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>

namespace ksink::testkit {
namespace {

// A directory no other run (of this process or another) uses.
std::filesystem::path freshDirectory(const std::string& connector) {
  static std::atomic<int> runs{0};
  auto dir = std::filesystem::temp_directory_path() /
             fmt::format("ksink-testkit-{}-{}-{}", ::getpid(), runs.fetch_add(1), connector);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace

ScenarioHarness::ScenarioHarness(const std::string& name, std::string_view scenario,
                                 int partitions) {
  run_.scenario = std::string(scenario);
  run_.connector = fmt::format("{}_{}", name, scenario);
  run_.topic = run_.connector;
  run_.directory = freshDirectory(run_.connector);
  cluster_.emplace(1);
  cluster_->createTopic(run_.topic, partitions);
}

ScenarioHarness::~ScenarioHarness() {
  cluster_.reset();
  std::error_code ignored;
  std::filesystem::remove_all(run_.directory, ignored);
}

void ScenarioHarness::stopWorker(std::unique_ptr<WorkerRunner>& worker, bool may_throw) {
  if (!worker) return;
  worker->stop();
  awaitEnd(worker->run(), "Worker::run()");
  if (!may_throw && worker->run().error() && !taskFailed())
    fail(fmt::format("the task failed: {}", worker->run().errorMessage()));
  worker.reset();
}

bool ScenarioHarness::reportTaskFailure(std::string_view call, const std::string& error) {
  if (!reported_task_failure_.exchange(true))
    fail(fmt::format("the task failed: {}() threw: {}", call, error));
  return true;
}

void ScenarioHarness::fail(const std::string& message) {
  std::lock_guard lock(mutex_);
  failures_.push_back(fmt::format("[{}] {}", run_.scenario, message));
}

ScenarioReport ScenarioHarness::report() const {
  std::lock_guard lock(mutex_);
  return {run_.scenario, failures_, skipped_};
}

}  // namespace ksink::testkit
