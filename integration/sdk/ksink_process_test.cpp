// ksink processes (the example JSON-lines sink linked with the ksink command line) against a real
// Kafka broker: rebalances between processes while records flow, and kill -9 with restart.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <regex>
#include <thread>

#include "child_process.h"
#include "test_kafka.h"
#include "topic_reader.h"

namespace ksink::it {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

// How many times each (partition, offset) appears in the JSON-lines files.
std::map<std::pair<int, int64_t>, int> readRecords(const std::vector<fs::path>& files) {
  static const std::regex coordinates(R"re("partition":(\d+),"offset":(\d+))re");
  std::map<std::pair<int, int64_t>, int> seen;
  for (const auto& file : files) {
    std::ifstream in(file);
    std::string line;
    std::smatch m;
    while (std::getline(in, line))
      if (std::regex_search(line, m, coordinates)) ++seen[{std::stoi(m[1]), std::stoll(m[2])}];
  }
  return seen;
}

struct Expectation {
  size_t missing = 0;
  size_t duplicated = 0;
};

Expectation compare(const std::map<std::pair<int, int64_t>, int>& seen, int partitions,
                    int64_t per_partition) {
  Expectation e;
  for (int p = 0; p < partitions; ++p)
    for (int64_t o = 0; o < per_partition; ++o) {
      auto it = seen.find({p, o});
      if (it == seen.end())
        ++e.missing;
      else if (it->second > 1)
        e.duplicated += static_cast<size_t>(it->second - 1);
    }
  return e;
}

class KsinkProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = freshDir("ksink-proc");
    topic_ = uniqueName("flow");
    name_ = uniqueName("jsonl");
  }

  fs::path writeConfigs(const std::string& tag, const fs::path& output, int flush_interval_ms,
                        const std::string& extra = "") {
    const auto worker = dir_ / (tag + "-worker.properties");
    std::ofstream(worker) << fmt::format(
        "bootstrap.servers={}\nlisteners=\noffset.flush.interval.ms={}\n"
        "consumer.session.timeout.ms=10000\nconsumer.heartbeat.interval.ms=500\n",
        RealKafka::shared().bootstrap(), flush_interval_ms);
    const auto connector = dir_ / (tag + "-connector.properties");
    std::ofstream(connector) << fmt::format(
        "name={}\nconnector.class=jsonl-file\ntopics={}\nfile={}\n{}", name_, topic_,
        output.string(), extra);
    worker_files_[tag] = worker;
    return connector;
  }

  std::unique_ptr<ChildProcess> startKsink(const std::string& tag, const fs::path& output,
                                           int flush_interval_ms = 1000,
                                           const std::string& extra = "") {
    const auto connector = writeConfigs(tag, output, flush_interval_ms, extra);
    return std::make_unique<ChildProcess>(
        std::vector<std::string>{KSINK_JSONL_BIN, "run", worker_files_[tag].string(),
                                 connector.string()},
        dir_ / (tag + ".log"));
  }

  // Runs `ksink-jsonl offsets` for connector `tag`'s files; returns (exit status, output).
  std::pair<int, std::string> runOffsets(const std::string& tag, const fs::path& output,
                                         const std::vector<std::string>& extra) {
    const auto connector = writeConfigs(tag, output, 500);
    std::vector<std::string> argv{KSINK_JSONL_BIN, "offsets", worker_files_[tag].string(),
                                  connector.string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    ChildProcess cli(argv, dir_ / (tag + ".log"));
    const auto status = cli.wait(60s);
    return {status.value_or(-1), cli.log()};
  }

  OffsetMap endOffsets(int partitions, int64_t per_partition) {
    OffsetMap out;
    for (int p = 0; p < partitions; ++p) out[{topic_, p}] = per_partition;
    return out;
  }

  fs::path dir_;
  std::string topic_;
  std::string name_;
  std::map<std::string, fs::path> worker_files_;
};

TEST_F(KsinkProcessTest, RebalanceBetweenTwoProcessesWhileRecordsFlowLosesAndDuplicatesNothing) {
  auto& kafka = RealKafka::shared();
  constexpr int kPartitions = 4;
  constexpr int kBatches = 80, kBatchSize = 40;  // 3200 records over ~16 s
  kafka.createTopic(topic_, kPartitions);
  const auto out_a = dir_ / "a.jsonl", out_b = dir_ / "b.jsonl";

  std::atomic<bool> producing{true};
  std::thread producer([&] {
    for (int b = 0; b < kBatches; ++b) {
      kafka.produceSequence(topic_, kPartitions, kBatchSize, "v", b * kBatchSize);
      std::this_thread::sleep_for(200ms);
    }
    producing = false;
  });

  auto a = startKsink("a", out_a);
  std::this_thread::sleep_for(4s);
  auto b = startKsink("b", out_b);  // joins: partitions move from a to b
  std::this_thread::sleep_for(6s);
  a->signal(SIGTERM);  // leaves: everything moves to b
  EXPECT_EQ(a->wait(30s), 0) << a->log();
  producer.join();

  const int64_t per_partition = kBatches * kBatchSize / kPartitions;
  const auto expected = endOffsets(kPartitions, per_partition);
  EXPECT_EQ(kafka.waitForCommitted("connect-" + name_, topic_, kPartitions, expected, 60s),
            expected);
  b->signal(SIGTERM);
  EXPECT_EQ(b->wait(30s), 0) << b->log();

  const auto seen_a = readRecords({out_a}), seen_b = readRecords({out_b});
  EXPECT_FALSE(seen_a.empty());
  EXPECT_FALSE(seen_b.empty());
  const auto result = compare(readRecords({out_a, out_b}), kPartitions, per_partition);
  EXPECT_EQ(result.missing, 0u);
  // Graceful hand-overs commit on revoke before the other process opens the partition.
  EXPECT_EQ(result.duplicated, 0u);
}

TEST_F(KsinkProcessTest, KillNineThenRestartRedeliversExactlyTheUncommittedRecords) {
  auto& kafka = RealKafka::shared();
  constexpr int kPartitions = 2;
  kafka.createTopic(topic_, kPartitions);
  const auto output = dir_ / "out.jsonl";
  const std::string group = "connect-" + name_;

  // 1. 100 records, delivered and committed, then a graceful stop.
  kafka.produceSequence(topic_, kPartitions, 100);
  {
    auto run1 = startKsink("run1", output, 500);
    EXPECT_EQ(kafka.waitForCommitted(group, topic_, kPartitions, endOffsets(kPartitions, 50), 60s),
              endOffsets(kPartitions, 50));
    run1->signal(SIGTERM);
    ASSERT_EQ(run1->wait(30s), 0) << run1->log();
  }
  // 2. 50 more, delivered (in the file) but never committed: the interval is far away.
  kafka.produceSequence(topic_, kPartitions, 50, "v", 100);
  {
    auto run2 = startKsink("run2", output, 600000);
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    while (readRecords({output}).size() < 150 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(100ms);
    ASSERT_EQ(readRecords({output}).size(), 150u) << run2->log();
    run2->signal(SIGKILL);
    run2->wait(10s);
  }
  EXPECT_EQ(kafka.committed(group, topic_, kPartitions), endOffsets(kPartitions, 50));
  // 3. Restart: exactly the 50 uncommitted records come again, nothing older.
  {
    auto run3 = startKsink("run3", output, 500);
    EXPECT_EQ(kafka.waitForCommitted(group, topic_, kPartitions, endOffsets(kPartitions, 75), 60s),
              endOffsets(kPartitions, 75));
    run3->signal(SIGTERM);
    ASSERT_EQ(run3->wait(30s), 0) << run3->log();
  }
  const auto seen = readRecords({output});
  for (int p = 0; p < kPartitions; ++p)
    for (int64_t o = 0; o < 75; ++o)
      EXPECT_EQ(seen.at({p, o}), o < 50 ? 1 : 2) << "partition " << p << " offset " << o;
}

// The README's example sink, a plugin-style custom SinkTask, gets what the runtime converted and
// transformed: JSON values as Structs, a field an SMT inserted, the topic a router chose; a record
// that is not JSON never reaches it and lands in the dead-letter queue — none of it the sink's
// code.
TEST_F(KsinkProcessTest, TheExampleSinkWritesWhatTheConvertersAndTransformsMade) {
  auto& kafka = RealKafka::shared();
  kafka.createTopic(topic_, 1);
  kafka.produce(topic_, {{0, "k1", std::string(R"({"id":1,"name":"a"})")},
                         {0, "k-bad", std::string("{not json")},
                         {0, "k2", std::string(R"({"id":2,"name":"b"})")}});
  const auto output = dir_ / "out.jsonl";
  const std::string dlq = topic_ + "-dlq";
  auto run =
      startKsink("structs", output, 500,
                 "errors.tolerance=all\n"
                 "errors.deadletterqueue.topic.name=" +
                     dlq +
                     "\n"
                     "errors.deadletterqueue.topic.replication.factor=1\n"
                     "errors.deadletterqueue.context.headers.enable=true\n"
                     "value.converter=org.apache.kafka.connect.json.JsonConverter\n"
                     "value.converter.schemas.enable=false\n"
                     "key.converter=org.apache.kafka.connect.storage.StringConverter\n"
                     "transforms=route,source\n"
                     "transforms.route.type=org.apache.kafka.connect.transforms.RegexRouter\n"
                     "transforms.route.regex=.*\ntransforms.route.replacement=routed\n"
                     "transforms.source.type=org.apache.kafka.connect.transforms."
                     "InsertField$Value\n"
                     "transforms.source.static.field=source\n"
                     "transforms.source.static.value=ksink\n");
  EXPECT_EQ(kafka.waitForCommitted("connect-" + name_, topic_, 1, endOffsets(1, 3), 60s),
            endOffsets(1, 3));
  run->signal(SIGTERM);
  ASSERT_EQ(run->wait(30s), 0) << run->log();
  const auto dead = test::readPartition(kafka.bootstrap(), dlq, 0, 1, 30s);
  ASSERT_EQ(dead.size(), 1u) << run->log();
  EXPECT_EQ(dead[0].key, "k-bad");
  EXPECT_EQ(dead[0].value, "{not json");
  EXPECT_EQ(dead[0].headers.at("__connect.errors.stage"), "VALUE_CONVERTER");
  EXPECT_EQ(dead[0].headers.at("__connect.errors.offset"), "1");
  std::ifstream in(output);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    lines.push_back(std::regex_replace(line, std::regex(R"("timestamp":\d+)"), R"("timestamp":T)"));
  EXPECT_EQ(lines, (std::vector<std::string>{
                       R"({"topic":"routed","partition":0,"offset":0,"timestamp":T,"key":"k1",)"
                       R"("value":{"id":1,"name":"a","source":"ksink"}})",
                       R"({"topic":"routed","partition":0,"offset":2,"timestamp":T,"key":"k2",)"
                       R"("value":{"id":2,"name":"b","source":"ksink"}})"}));
}

TEST_F(KsinkProcessTest, OffsetsSetOnAStoppedConnectorMovesWhereItResumes) {
  auto& kafka = RealKafka::shared();
  kafka.createTopic(topic_, 1);
  kafka.produceSequence(topic_, 1, 20);
  const auto output = dir_ / "out.jsonl";
  const std::string group = "connect-" + name_;
  {
    auto run1 = startKsink("run1", output, 500);
    ASSERT_EQ(kafka.waitForCommitted(group, topic_, 1, endOffsets(1, 20), 60s), endOffsets(1, 20));
    run1->signal(SIGTERM);
    ASSERT_EQ(run1->wait(30s), 0) << run1->log();
  }
  const auto [status, out] = runOffsets("set", output, {"--set", topic_ + ":0=5"});
  ASSERT_EQ(status, 0) << out;
  EXPECT_EQ(kafka.committed(group, topic_, 1), endOffsets(1, 5));
  {
    auto run2 = startKsink("run2", output, 500);
    EXPECT_EQ(kafka.waitForCommitted(group, topic_, 1, endOffsets(1, 20), 60s), endOffsets(1, 20));
    run2->signal(SIGTERM);
    ASSERT_EQ(run2->wait(30s), 0) << run2->log();
  }
  const auto seen = readRecords({output});
  for (int64_t o = 0; o < 20; ++o) EXPECT_EQ(seen.at({0, o}), o < 5 ? 1 : 2) << "offset " << o;
}

TEST_F(KsinkProcessTest, OffsetsResetDeletesTheGroupAndIsRefusedWhileTheConnectorRuns) {
  auto& kafka = RealKafka::shared();
  kafka.createTopic(topic_, 1);
  kafka.produceSequence(topic_, 1, 10);
  const auto output = dir_ / "out.jsonl";
  const std::string group = "connect-" + name_;
  auto running = startKsink("run", output, 500);
  ASSERT_EQ(kafka.waitForCommitted(group, topic_, 1, endOffsets(1, 10), 60s), endOffsets(1, 10));

  const auto [refused, refused_out] = runOffsets("reset-running", output, {"--reset"});
  EXPECT_EQ(refused, 1) << refused_out;
  EXPECT_NE(refused_out.find("still has members"), std::string::npos) << refused_out;
  EXPECT_EQ(kafka.committed(group, topic_, 1), endOffsets(1, 10));

  running->signal(SIGTERM);
  ASSERT_EQ(running->wait(30s), 0) << running->log();
  const auto [status, out] = runOffsets("reset", output, {"--reset"});
  ASSERT_EQ(status, 0) << out;
  EXPECT_TRUE(kafka.committed(group, topic_, 1).empty());
}

}  // namespace
}  // namespace ksink::it
