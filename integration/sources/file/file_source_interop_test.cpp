// Kafka Connect's FileStreamSource and ksink's, on one file and one topic, taking turns, with the
// source offsets in either of Connect's stores: standalone's file (offset.storage.file.filename)
// or distributed's topic (offset.storage.topic). Against the real broker and the real Kafka
// Connect 4.1.1 runtime (integration/debezium/start.sh, with connect-file from
// fetch_connect_file.sh). Each takes over where the other stopped: nothing read twice, nothing
// missed, the records each writes are the same bytes, and in the topic both write an entry to the
// same partition (murmur2 of its key, as Java's producer picks). Distributed, ksink is started with
// Connect's cluster topics and no connector file, and runs the connector Connect's config topic
// holds: the migration of a Connect cluster.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <set>

#include "child_process.h"
#include "connect_standalone.h"
#include "polling.h"
#include "test_kafka.h"
#include "topic_reader.h"

namespace ksink::it {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

// What Connect's JsonConverter (schemas on) writes for a FileStreamSource line.
std::string connectValue(const std::string& line) {
  return R"({"schema":{"type":"string","optional":false},"payload":")" + line + R"("})";
}

enum class Store { kFile, kTopic };

class FileSourceInteropTest : public ::testing::TestWithParam<Store> {
 protected:
  void SetUp() override {
    dir_ = freshDir("file-interop");
    topic_ = uniqueName("lines");
    name_ = uniqueName("file-source");
    offsets_topic_ = uniqueName("offsets");
    input_ = (dir_ / "input.txt").string();
    RealKafka::shared().createTopic(topic_, 1);
  }
  bool distributed() const { return GetParam() == Store::kTopic; }
  void TearDown() override { script("stop.sh", {}); }

  void appendLines(int from, int to) {
    std::ofstream out(input_, std::ios::app);
    for (int i = from; i < to; ++i) out << "line-" << i << "\n";
  }

  int64_t produced() { return RealKafka::shared().endOffset({topic_, 0}); }

  void waitProduced(int64_t n, const std::string& who) {
    ASSERT_TRUE(waitUntil([&] { return produced() >= n; }, 60s))
        << who << " produced " << produced();
  }

  // Runs a Connect standalone worker with Connect's FileStreamSource until it has produced `n`
  // records, then stops it (SIGTERM: its final offset commit).
  void runConnect(int64_t n) {
    script("start.sh",
           {RealKafka::shared().bootstrap(), "name=" + name_, "connector.class=FileStreamSource",
            "tasks.max=1", "file=" + input_, "topic=" + topic_});
    waitProduced(n, "Connect");
    script("stop.sh", {});
  }

  // Runs `ksink run` with ksink's FileStreamSource on Connect's offsets file until it has produced
  // `n` records, then stops it with SIGTERM. Distributed, it is started as Connect's worker was —
  // the same group, config and offsets topics — and no connector file: it takes the connector
  // over from the config topic Connect wrote.
  void runKsink(int64_t n) {
    const auto worker = dir_ / "ksink-worker.properties";
    std::ofstream(worker) << fmt::format(
        "bootstrap.servers={}\n{}\noffset.flush.interval.ms=500\nlisteners=\n",
        RealKafka::shared().bootstrap(),
        distributed()
            ? fmt::format("group.id={0}-group\noffset.storage.topic={0}\n"
                          "offset.storage.replication.factor=1\nconfig.storage.topic={0}-configs\n"
                          "config.storage.replication.factor=1\nstatus.storage.topic={0}-status\n"
                          "status.storage.replication.factor=1",
                          offsets_topic_)
            : "offset.storage.file.filename=" + (connectDir() / "offsets.dat").string());
    std::vector<std::string> command{KSINK_BIN, "run", worker.string()};
    if (!distributed()) {
      const auto connector = dir_ / "ksink-connector.properties";
      std::ofstream(connector) << fmt::format(
          "name={}\nconnector.class=FileStreamSource\ntasks.max=1\nfile={}\ntopic={}\n", name_,
          input_, topic_);
      command.push_back(connector.string());
    }
    ChildProcess ksink(command, dir_ / "ksink.log");
    waitProduced(n, "ksink");
    ksink.signal(SIGTERM);
    const auto status = ksink.wait(20s);
    ASSERT_EQ(status, 0) << ksink.log();
  }

  std::vector<std::string> values() {
    std::vector<std::string> out;
    for (const auto& r : test::readPartition(RealKafka::shared().bootstrap(), topic_, 0,
                                             static_cast<size_t>(produced()), 20s))
      out.push_back(r.value.value_or("<null>"));
    return out;
  }

  static std::vector<std::string> expected(int to) {
    std::vector<std::string> out;
    for (int i = 0; i < to; ++i) out.push_back(connectValue(fmt::format("line-{}", i)));
    return out;
  }

  fs::path connectDir() const { return dir_ / "connect"; }

  void script(const std::string& name, const std::vector<std::string>& args) {
    connectScript(name, connectDir(), args,
                  {"KSINK_CONNECT_OFFSETS_TOPIC=" + (distributed() ? offsets_topic_ : "")});
  }

  // The partitions of the offsets topic holding an entry of this connector's file.
  std::set<int32_t> offsetPartitions() {
    std::set<int32_t> out;
    const std::string key = R"([")" + name_ + R"(",{"filename":")" + input_ + R"("}])";
    for (int32_t p = 0; p < 25; ++p) {
      const auto end = RealKafka::shared().endOffset({offsets_topic_, p});
      if (end == 0) continue;
      for (const auto& r : test::readPartition(RealKafka::shared().bootstrap(), offsets_topic_, p,
                                               static_cast<size_t>(end), 10s))
        if (r.key == key) out.insert(p);
    }
    return out;
  }

  fs::path dir_;
  std::string topic_, name_, offsets_topic_, input_;
};

TEST_P(FileSourceInteropTest, KsinkResumesWhereConnectStoppedAndConnectWhereKsinkStopped) {
  appendLines(0, 100);
  ASSERT_NO_FATAL_FAILURE(runConnect(100));
  if (!distributed()) {
    ASSERT_TRUE(fs::exists(connectDir() / "offsets.dat"));
  }

  appendLines(100, 250);
  ASSERT_NO_FATAL_FAILURE(runKsink(250));
  EXPECT_EQ(values(), expected(250)) << "ksink resumed at Connect's position";

  appendLines(250, 300);
  ASSERT_NO_FATAL_FAILURE(runConnect(300));
  EXPECT_EQ(values(), expected(300)) << "Connect resumed at ksink's position";
  if (distributed()) {
    EXPECT_EQ(offsetPartitions().size(), 1u) << "one partition for one key";
  }
}

INSTANTIATE_TEST_SUITE_P(Stores, FileSourceInteropTest,
                         ::testing::Values(Store::kFile, Store::kTopic), [](const auto& info) {
                           return info.param == Store::kFile ? "StandaloneFile"
                                                             : "DistributedTopic";
                         });

}  // namespace
}  // namespace ksink::it
