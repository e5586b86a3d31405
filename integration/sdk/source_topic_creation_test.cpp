// Topic creation by a source connector (KIP-158) against a real broker: a topic the task writes to
// for the first time is created with the first topic.creation group that matches it (its
// partitions, replication factor and topic configs), else the default group; a topic that exists is
// left as it is; a topic that cannot be created fails the task, naming it, before any record of it
// is sent. The records all arrive.
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <mutex>

#include "ksink/source_connector.h"
#include "ksink/source_worker.h"
#include "polling.h"
#include "support/worker_runner.h"
#include "test_kafka.h"

namespace ksink::it {
namespace {

using namespace std::chrono_literals;

// Sends `per_topic` records to each topic of its `topics` key (comma-separated), then nothing.
class TopicsSource final : public SourceTask {
 public:
  void start(const Config& config) override { topics_ = config.getList("topics"); }
  std::vector<SourceRecord> poll() override {
    if (done_) {
      std::this_thread::sleep_for(20ms);
      return {};
    }
    done_ = true;
    std::vector<SourceRecord> out;
    for (int i = 0; i < kPerTopic; ++i)
      for (const auto& topic : topics_)
        out.emplace_back(SourceMap{{"t", Value::string(topic)}},
                         SourceMap{{"i", Value::integer(i)}}, topic, std::nullopt,
                         SchemaAndValue{nullptr, Value::string(std::to_string(i))},  // compaction
                         SchemaAndValue{nullptr, Value::string(fmt::format("{}-{}", topic, i))});
    return out;
  }
  void stop() override {}

  static constexpr int kPerTopic = 20;

 private:
  std::vector<std::string> topics_;
  bool done_ = false;
};

class SourceTopicCreationTest : public ::testing::Test {
 protected:
  std::unique_ptr<Worker> worker(const std::vector<std::string>& topics,
                                 std::map<std::string, std::string> extra) {
    std::map<std::string, std::string> p{
        {"name", name},
        {"bootstrap.servers", kafka.bootstrap()},
        {"offset.storage.file.filename", (dir / "offsets").string()},
        {"offset.flush.interval.ms", "200"},
        {"key.converter", "org.apache.kafka.connect.storage.StringConverter"},
        {"value.converter", "org.apache.kafka.connect.storage.StringConverter"},
        {"topics", fmt::format("{}", fmt::join(topics, ","))},
    };
    for (auto& [k, v] : extra) p.insert_or_assign(k, v);
    ConfigDef def;
    def.define("topics", ConfigDef::Type::kList, std::nullopt, ConfigDef::Importance::kHigh, "");
    return makeSourceWorker(Config(p, def), [] { return std::make_unique<TopicsSource>(); });
  }

  // 0 while the topic does not exist with its partitions, or the broker cannot tell yet (a topic
  // created moments ago may answer "unknown"). Asked through the list of every topic first: a
  // lookup of the topic by name would have the broker auto-create it before the task does.
  int64_t records(const std::string& topic, int partitions) {
    try {
      if (kafka.describeTopic(topic).partitions < partitions) return 0;
      int64_t n = 0;
      for (int p = 0; p < partitions; ++p) n += kafka.endOffset({topic, p});
      return n;
    } catch (const std::exception&) {
      return 0;
    }
  }

  RealKafka& kafka = RealKafka::shared();
  const std::string name = uniqueName("topic-creation");
  const std::filesystem::path dir = freshDir("topic-creation");
};

TEST_F(SourceTopicCreationTest, NewTopicsTakeTheirGroupsSettingsAndAnExistingOneIsLeftAlone) {
  const std::string compacted = name + ".db.accounts";
  const std::string excluded = name + ".db.audit";
  const std::string plain = name + ".metrics";
  const std::string existing = name + ".existing";
  kafka.createTopic(existing, 1);
  auto w = worker({compacted, excluded, plain, existing},
                  {{"topic.creation.groups", "compacted"},
                   {"topic.creation.default.replication.factor", "1"},
                   {"topic.creation.default.partitions", "3"},
                   {"topic.creation.default.retention.ms", "3600000"},
                   {"topic.creation.compacted.include", ".*\\.db\\..*"},
                   {"topic.creation.compacted.exclude", ".*audit"},
                   {"topic.creation.compacted.partitions", "2"},
                   {"topic.creation.compacted.cleanup.policy", "compact"}});
  const std::map<std::string, int> partitions{
      {compacted, 2}, {excluded, 3}, {plain, 3}, {existing, 1}};
  test::BackgroundRun run([&] { w->run(); });
  const bool arrived = waitUntil(
      [&] {
        for (const auto& [t, n] : partitions)
          if (records(t, n) < TopicsSource::kPerTopic) return false;
        return true;
      },
      30s, 100ms);
  w->stop();
  ASSERT_TRUE(run.waitFinished(15s));
  EXPECT_EQ(run.errorMessage(), "");
  ASSERT_TRUE(arrived);

  const auto c = kafka.describeTopic(compacted);
  EXPECT_EQ(c.partitions, 2);
  EXPECT_EQ(c.configs, (std::map<std::string, std::string>{{"cleanup.policy", "compact"}}));
  for (const auto& t : {excluded, plain}) {
    const auto d = kafka.describeTopic(t);
    EXPECT_EQ(d.partitions, 3) << t;
    EXPECT_EQ(d.configs, (std::map<std::string, std::string>{{"retention.ms", "3600000"}})) << t;
  }
  const auto e = kafka.describeTopic(existing);
  EXPECT_EQ(e.partitions, 1);
  EXPECT_TRUE(e.configs.empty());
  for (const auto& [t, n] : partitions) EXPECT_EQ(records(t, n), TopicsSource::kPerTopic) << t;
}

TEST_F(SourceTopicCreationTest, ATopicThatCannotBeCreatedFailsTheTaskNamingIt) {
  const std::string topic = name + ".unreplicable";
  auto w = worker({topic}, {{"topic.creation.default.replication.factor", "3"},  // one broker
                            {"topic.creation.default.partitions", "1"}});
  test::BackgroundRun run([&] { w->run(); });
  if (!run.waitFinished(30s)) {
    w->stop();
    ASSERT_TRUE(run.waitFinished(15s));
    FAIL() << "the task did not fail";
  }
  EXPECT_NE(run.errorMessage().find("Task failed to create new topic " + topic), std::string::npos)
      << run.errorMessage();
  EXPECT_NE(run.errorMessage().find("replication factor 3"), std::string::npos)
      << run.errorMessage();
  // Nothing was sent to it (which would have had the broker auto-create it).
  EXPECT_EQ(kafka.describeTopic(topic).partitions, 0);
}

}  // namespace
}  // namespace ksink::it
