// Signals to `ksink run`: the first stops gracefully, a second forces the exit once
// task.shutdown.graceful.timeout.ms has passed since the first, a third exits at once.
// No broker: the worker's consumer points at a closed port.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "support/child_process.h"

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

class CliSignalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           fmt::format("ksink-signal-{}-{}", ::getpid(),
                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::ofstream(dir_ / "worker.properties")
        << "bootstrap.servers=127.0.0.1:1\nlisteners=\nplugin.path=" << KSINK_TEST_PLUGIN_DIR << ","
        << KSINK_PLUGIN_DIR << "\n";
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Starts `ksink run` with one connector of `sink` and waits until it logs that it runs it.
  std::unique_ptr<ksink::it::ChildProcess> start(const std::string& sink,
                                                 const std::string& extra = "") {
    const auto connector = dir_ / "connector.properties";
    std::ofstream(connector) << fmt::format(
        "name=signals\nconnector.class={}\ntopics=t\nfile={}\n"
        "task.shutdown.graceful.timeout.ms={}\n{}",
        sink, (dir_ / "out.jsonl").string(), kGracefulMs, extra);
    auto child = std::make_unique<ksink::it::ChildProcess>(
        std::vector<std::string>{KSINK_BIN, "run", (dir_ / "worker.properties").string(),
                                 connector.string()},
        dir_ / "ksink.log");
    const auto until = Clock::now() + 10s;
    while (child->log().find("connector signals") == std::string::npos && Clock::now() < until)
      std::this_thread::sleep_for(20ms);
    EXPECT_NE(child->log().find("connector signals"), std::string::npos) << child->log();
    std::this_thread::sleep_for(300ms);  // into the worker's run()
    return child;
  }

  static constexpr int kGracefulMs = 1500;
  fs::path dir_;
};

TEST_F(CliSignalTest, SecondSignalForcesTheExitOnceTheGracefulTimeoutHasPassed) {
  auto ksink = start("never-ready");  // its factory never returns: no graceful stop can finish
  const auto first = Clock::now();
  ksink->signal(SIGTERM);
  std::this_thread::sleep_for(200ms);
  ASSERT_TRUE(ksink->running()) << ksink->log();
  ksink->signal(SIGTERM);
  const auto status = ksink->wait(10s);
  const auto took = Clock::now() - first;
  ASSERT_TRUE(status.has_value()) << "still running 10 s after two signals\n" << ksink->log();
  EXPECT_EQ(*status, 1) << ksink->log();
  EXPECT_GE(took, std::chrono::milliseconds(kGracefulMs - 100)) << "left before the timeout";
  EXPECT_LT(took, std::chrono::milliseconds(kGracefulMs + 2000)) << ksink->log();
  EXPECT_NE(ksink->log().find("exiting now"), std::string::npos) << ksink->log();
}

TEST_F(CliSignalTest, ThirdSignalExitsAtOnce) {
  auto ksink = start("never-ready");
  const auto first = Clock::now();
  for (int i = 0; i < 3; ++i) {
    ksink->signal(SIGTERM);
    std::this_thread::sleep_for(100ms);
  }
  const auto status = ksink->wait(10s);
  ASSERT_TRUE(status.has_value()) << ksink->log();
  EXPECT_EQ(*status, 1);
  EXPECT_LT(Clock::now() - first, std::chrono::milliseconds(kGracefulMs)) << ksink->log();
}

// One signal, and a task that cannot stop (stuck in put()): it is abandoned once
// task.shutdown.graceful.timeout.ms has passed, and that is no graceful stop, so the exit is 1.
TEST_F(CliSignalTest, AStopThatAbandonsATaskExitsOne) {
  auto ksink = start("stuck-in-put");
  const auto first = Clock::now();
  ksink->signal(SIGTERM);
  const auto status = ksink->wait(10s);
  ASSERT_TRUE(status.has_value()) << "still running 10 s after the signal\n" << ksink->log();
  EXPECT_EQ(*status, 1) << ksink->log();
  EXPECT_GE(Clock::now() - first, std::chrono::milliseconds(kGracefulMs - 100));
  EXPECT_NE(ksink->log().find("abandoned"), std::string::npos) << ksink->log();
}

TEST_F(CliSignalTest, GracefulStopThatFinishesInTimeIsNotCutShortByASecondSignal) {
  auto ksink = start("jsonl-file");
  const auto first = Clock::now();
  ksink->signal(SIGTERM);
  ksink->signal(SIGTERM);
  const auto status = ksink->wait(10s);
  ASSERT_TRUE(status.has_value()) << ksink->log();
  EXPECT_EQ(*status, 0) << ksink->log();
  EXPECT_LT(Clock::now() - first, std::chrono::milliseconds(kGracefulMs + 1000)) << ksink->log();
  EXPECT_EQ(ksink->log().find("exiting now"), std::string::npos) << ksink->log();
}

}  // namespace
