#include "ksink/testkit/worker_runner.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "ksink/detail/describe_failure.h"
#include "ksink/source_connector.h"

namespace ksink::testkit {
namespace {

// A worker that has not ended this long after stop() is hung: abort with a message rather than
// leave ctest waiting for its default 25-minute timeout (the Worker cannot outlive its run()).
constexpr std::chrono::seconds kHungAfter{60};

// What makeSourceWorker() validates a source connector's configuration against.
ConfigDef sourceKeys(const Config& config) {
  ConfigDef def = sourceConnectorKeys();
  def.include(config.definitions());
  return def;
}

}  // namespace

void awaitEnd(BackgroundRun& run, const char* what) {
  if (run.waitFinished(kHungAfter)) return;
  std::fprintf(stderr, "%s did not end within %lld s of stop(): aborting the test\n", what,
               static_cast<long long>(kHungAfter.count()));
  std::abort();
}

void withDeadLetterQueue(Properties& properties, const std::string& topic, bool context_headers) {
  properties["errors.tolerance"] = "all";
  properties["errors.deadletterqueue.topic.name"] = topic;
  properties["errors.deadletterqueue.topic.replication.factor"] = "1";
  if (context_headers) properties["errors.deadletterqueue.context.headers.enable"] = "true";
}

Properties mockWorkerProperties(const std::string& name, const std::string& topics,
                                const std::string& bootstrap) {
  return {
      {"name", name},
      {"topics", topics},
      {"bootstrap.servers", bootstrap},
      {"offset.flush.interval.ms", "500"},
      {"offset.flush.timeout.ms", "1000"},
      {"task.shutdown.graceful.timeout.ms", "3000"},
      // Below ~3.5 s the mock never completes a join (a measured deviation of the mock).
      {"consumer.session.timeout.ms", "4000"},
      {"consumer.heartbeat.interval.ms", "300"},
  };
}

std::string currentTestName() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return info ? info->name() : "no-test";
}

BackgroundRun::BackgroundRun(std::function<void()> body)
    : thread_([this, body = std::move(body)] {
        std::exception_ptr error;
        try {
          body();
        } catch (...) {
          error = std::current_exception();
        }
        std::lock_guard lock(mutex_);
        error_ = error;
        done_ = true;
        done_changed_.notify_all();
      }) {}

BackgroundRun::~BackgroundRun() {
  thread_.join();
}

bool BackgroundRun::waitFinished(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  return done_changed_.wait_for(lock, timeout, [&] { return done_; });
}

bool BackgroundRun::finished() const {
  std::lock_guard lock(mutex_);
  return done_;
}

std::exception_ptr BackgroundRun::error() const {
  std::lock_guard lock(mutex_);
  return error_;
}

std::string BackgroundRun::errorMessage() const {
  auto e = error();
  return e ? describeFailure(e) : "";
}

WorkerRunner::WorkerRunner(const Properties& properties, TaskFactory factory)
    : WorkerRunner(Config(properties), std::move(factory)) {}

WorkerRunner::WorkerRunner(const Config& config, TaskFactory factory)
    : worker_(config, std::move(factory)),
      run_(std::make_unique<BackgroundRun>([this] { worker_.run(); })) {}

WorkerRunner::WorkerRunner(const Config& config, SourceTaskFactory factory)
    : worker_(Config(config.values(), sourceKeys(config)), std::move(factory)),
      run_(std::make_unique<BackgroundRun>([this] { worker_.run(); })) {}

WorkerRunner::~WorkerRunner() {
  worker_.stop();
  awaitEnd(*run_, "Worker::run()");
}

std::optional<std::chrono::milliseconds> WorkerRunner::stopAndMeasure(
    std::chrono::milliseconds timeout) {
  const auto started = std::chrono::steady_clock::now();
  worker_.stop();
  if (!run_->waitFinished(timeout)) return std::nullopt;
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               started);
}

}  // namespace ksink::testkit
