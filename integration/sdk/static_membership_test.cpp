// Static group membership (KIP-345, consumer.group.instance.id) against a real Kafka broker: a
// ksink process killed with -9 and restarted gets its partitions back at once instead of after
// session.timeout.ms, and a process that comes back under the same id fences the old one.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <regex>
#include <thread>

#include "child_process.h"
#include "test_kafka.h"

namespace ksink::it {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr int kSessionTimeoutMs = 30000;

// Offsets of partition 0 in a JSON-lines file written by the example sink.
std::multiset<int64_t> offsetsIn(const fs::path& file) {
  static const std::regex coordinates(R"re("partition":0,"offset":(\d+))re");
  std::multiset<int64_t> out;
  std::ifstream in(file);
  std::string line;
  std::smatch m;
  while (std::getline(in, line))
    if (std::regex_search(line, m, coordinates)) out.insert(std::stoll(m[1]));
  return out;
}

class StaticMembershipTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = freshDir("ksink-static");
    topic_ = uniqueName("static");
    name_ = uniqueName("static");
    output_ = dir_ / "out.jsonl";
    RealKafka::shared().createTopic(topic_, 1);
  }

  std::unique_ptr<ChildProcess> start(const std::string& tag, const std::string& instance) {
    const auto worker = dir_ / (tag + "-worker.properties");
    std::ofstream(worker) << fmt::format(
        "bootstrap.servers={}\nexit.on.task.failure=true\nlisteners=\noffset.flush.interval.ms="
        "500\n"
        "consumer.session.timeout.ms={}\nconsumer.heartbeat.interval.ms=500\n{}",
        RealKafka::shared().bootstrap(), kSessionTimeoutMs,
        instance.empty() ? "" : "consumer.group.instance.id=" + instance + "\n");
    const auto connector = dir_ / (tag + "-connector.properties");
    std::ofstream(connector) << fmt::format(
        "name={}\nconnector.class=jsonl-file\ntopics={}\nfile={}\n", name_, topic_,
        output_.string());
    return std::make_unique<ChildProcess>(
        std::vector<std::string>{KSINK_JSONL_BIN, "run", worker.string(), connector.string()},
        dir_ / (tag + ".log"));
  }

  // Produces one record and waits until the file holds it; how long that took, or nullopt.
  std::optional<std::chrono::milliseconds> timeToDeliver(int64_t offset,
                                                         std::chrono::milliseconds timeout) {
    const auto begin = Clock::now();
    RealKafka::shared().produceSequence(topic_, 1, 1, "v", static_cast<int>(offset));
    while (Clock::now() - begin < timeout) {
      if (offsetsIn(output_).contains(offset))
        return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - begin);
      std::this_thread::sleep_for(50ms);
    }
    return std::nullopt;
  }

  // Starts, delivers offset 0, kill -9, restarts: the time from the restart until a new record
  // is delivered.
  std::optional<std::chrono::milliseconds> recoveryAfterKill(const std::string& instance) {
    auto first = start("first", instance);
    if (!timeToDeliver(0, 60s)) return std::nullopt;
    std::this_thread::sleep_for(1s);  // a commit of offset 1
    first->signal(SIGKILL);
    first->wait(10s);
    auto second = start("second", instance);
    auto took = timeToDeliver(1, std::chrono::milliseconds(2 * kSessionTimeoutMs));
    second->signal(SIGTERM);
    EXPECT_EQ(second->wait(30s), 0) << second->log();
    return took;
  }

  fs::path dir_, output_;
  std::string topic_, name_;
};

TEST_F(StaticMembershipTest, ARestartAfterKillNineGetsItsPartitionsBackBeforeTheSessionTimeout) {
  const auto took = recoveryAfterKill("host-a");
  ASSERT_TRUE(took) << "the restarted process never received the partition";
  fmt::print(
      "static membership: kill -9 to the next record delivered after restart: {} ms "
      "(session.timeout.ms {})\n",
      took->count(), kSessionTimeoutMs);
  EXPECT_LT(took->count(), kSessionTimeoutMs / 2);
  const auto seen = offsetsIn(output_);
  EXPECT_EQ(seen.count(0), 1u);
  EXPECT_EQ(seen.count(1), 1u);
}

// The baseline the static id improves on: a dynamic member waits for the killed one's session to
// expire. Measured so the docs can state both figures from the same run.
TEST_F(StaticMembershipTest, WithoutAnInstanceIdTheRestartWaitsForTheSessionToExpire) {
  const auto took = recoveryAfterKill("");
  ASSERT_TRUE(took) << "the restarted process never received the partition";
  fmt::print(
      "dynamic membership: kill -9 to the next record delivered after restart: {} ms "
      "(session.timeout.ms {})\n",
      took->count(), kSessionTimeoutMs);
  EXPECT_GT(took->count(), kSessionTimeoutMs / 2);
}

// A SIGSTOPped process comes back after a new one took its instance id: the broker fences it and
// its task fails (exit 1). (What it had already fetched it may still write before it learns of
// the fence: only the transactional sinks' compare-and-set keeps such a zombie out of the table.)
TEST_F(StaticMembershipTest, AZombieWithTheSameInstanceIdIsFencedAndExits) {
  auto first = start("first", "host-a");
  ASSERT_TRUE(timeToDeliver(0, 60s)) << first->log();
  first->signal(SIGSTOP);
  auto second = start("second", "host-a");
  ASSERT_TRUE(timeToDeliver(1, std::chrono::milliseconds(2 * kSessionTimeoutMs))) << second->log();
  first->signal(SIGCONT);
  EXPECT_EQ(first->wait(60s), 1) << first->log();
  ASSERT_TRUE(timeToDeliver(2, 60s)) << second->log();
  second->signal(SIGTERM);
  EXPECT_EQ(second->wait(30s), 0) << second->log();
  EXPECT_EQ(offsetsIn(output_).count(2), 1u);
}

}  // namespace
}  // namespace ksink::it
