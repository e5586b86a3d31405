// The SQLite sink in `ksink` processes against a real Kafka broker and real database files: each
// mode, deletes, auto.create/evolve, schema envelope and schemaless JSON; kill -9 at random moments
// while 200k records flow; two processes writing one file while partitions move between them.
// Every check reads the table (and ksink_offsets) back.
#include <SQLiteCpp/Database.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <fstream>
#include <random>
#include <thread>

#include "child_process.h"
#include "polling.h"
#include "sqlite_query.h"
#include "test_kafka.h"

namespace ksink::it {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

class SqliteSinkItTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = freshDir("ksink-sqlite-it");
    topic_ = uniqueName("sq");
    name_ = uniqueName("sqlite");
    db_ = (dir_ / "sink.db").string();
  }

  std::string group() const { return "connect-" + name_; }

  std::unique_ptr<ChildProcess> startKsink(const std::string& tag,
                                           const std::map<std::string, std::string>& props,
                                           int flush_interval_ms = 500,
                                           int max_poll_records = 2000) {
    const auto worker = dir_ / (tag + "-worker.properties");
    std::ofstream(worker) << fmt::format(
        "bootstrap.servers={}\nexit.on.task.failure=true\nlisteners=\noffset.flush.interval.ms={}\n"
        "consumer.session.timeout.ms=6000\nconsumer.heartbeat.interval.ms=500\n"
        "consumer.max.poll.records={}\n",
        RealKafka::shared().bootstrap(), flush_interval_ms, max_poll_records);
    const auto connector = dir_ / (tag + "-connector.properties");
    std::ofstream out(connector);
    out << fmt::format("name={}\nconnector.class=sqlite\ntopics={}\nconnection.url=sqlite://{}\n",
                       name_, topic_, db_);
    for (const auto& [k, v] : props) out << k << "=" << v << "\n";
    out.close();
    return std::make_unique<ChildProcess>(
        std::vector<std::string>{KSINK_BIN, "run", worker.string(), connector.string()},
        dir_ / (tag + ".log"));
  }

  OffsetMap endOffsets(int partitions, int64_t per_partition) const {
    OffsetMap out;
    for (int p = 0; p < partitions; ++p) out[{topic_, p}] = per_partition;
    return out;
  }

  // Runs ksink until the group has committed `expected`, then stops it gracefully.
  void runUntilCommitted(const std::map<std::string, std::string>& props, const OffsetMap& expected,
                         int partitions) {
    auto ksink = startKsink("run", props);
    EXPECT_EQ(RealKafka::shared().waitForCommitted(group(), topic_, partitions, expected, 90s),
              expected)
        << ksink->log();
    ksink->signal(SIGTERM);
    EXPECT_EQ(ksink->wait(30s), 0) << ksink->log();
  }

  testing::Rows query(const std::string& sql) const { return testing::queryRows(db_, sql); }
  void execute(const std::string& sql) const {
    SQLite::Database db(db_, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec(sql);
  }
  int64_t count(const std::string& sql) const { return std::stoll(query(sql).at(0).at(0)); }

  // ksink_offsets as an OffsetMap for this connector.
  OffsetMap storedOffsets() const {
    OffsetMap out;
    for (const auto& row : query(fmt::format(
             "SELECT topic, partition, next_offset FROM ksink_offsets WHERE connector='{}'",
             name_)))
      out[{row[0], std::stoi(row[1])}] = std::stoll(row[2]);
    return out;
  }

  fs::path dir_;
  std::string topic_, name_, db_;
};

std::string envelope(int id, const std::string& name, const std::string& price_b64) {
  return fmt::format(
      R"({{"schema":{{"type":"struct","name":"Order","fields":[)"
      R"({{"field":"id","type":"int32","optional":false}},)"
      R"({{"field":"name","type":"string","optional":true}},)"
      R"({{"field":"price","type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","parameters":{{"scale":"2"}}}},)"
      R"({{"field":"day","type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Date"}}]}},)"
      R"("payload":{{"id":{},"name":"{}","price":"{}","day":19000}}}})",
      id, name, price_b64);
}

TEST_F(SqliteSinkItTest, InsertModeWithSchemaEnvelopeAutoCreatesTheTableAndWritesEachRecordOnce) {
  auto& kafka = RealKafka::shared();
  kafka.createTopic(topic_, 2);
  std::vector<RealKafka::Message> messages;
  for (int i = 0; i < 100; ++i)
    messages.push_back({i % 2, std::nullopt, envelope(i, fmt::format("n{}", i), "MDk=")});
  kafka.produce(topic_, messages);

  runUntilCommitted({{"auto.create", "true"}, {"pk.mode", "kafka"}}, endOffsets(2, 50), 2);

  const auto table = fmt::format("\"{}\"", topic_);
  EXPECT_EQ(count("SELECT count(*) FROM " + table), 100);
  EXPECT_EQ(count("SELECT count(DISTINCT id) FROM " + table), 100);
  EXPECT_EQ(query(fmt::format("SELECT name, price, day FROM {} WHERE id = 7", table)),
            (std::vector<std::vector<std::string>>{{"n7", "123.45", "2022-01-08"}}));
  EXPECT_EQ(query(fmt::format("SELECT __connect_partition, __connect_offset FROM {} WHERE id = 7",
                              table)),
            (std::vector<std::vector<std::string>>{{"1", "3"}}));
  EXPECT_EQ(storedOffsets(), endOffsets(2, 50));
}

TEST_F(SqliteSinkItTest, SchemalessUpsertKeepsTheLastValuePerKeyAndTombstonesDelete) {
  auto& kafka = RealKafka::shared();
  kafka.createTopic(topic_, 1);
  kafka.produce(topic_, {{0, "a", R"({"qty":1,"note":"first"})"},
                         {0, "b", R"({"qty":2,"note":"b"})"},
                         {0, "c", R"({"qty":3,"note":"c"})"},
                         {0, "a", R"({"qty":10,"note":"second"})"},
                         {0, "b", std::nullopt}});
  const std::map<std::string, std::string> props = {
      {"auto.create", "true"},     {"insert.mode", "upsert"},
      {"pk.mode", "record_key"},   {"pk.fields", "sku"},
      {"delete.enabled", "true"},  {"key.converter", "string"},
      {"value.converter", "json"}, {"value.converter.schemas.enable", "false"}};
  runUntilCommitted(props, endOffsets(1, 5), 1);
  EXPECT_EQ(query(fmt::format(R"(SELECT sku, qty, note FROM "{}" ORDER BY sku)", topic_)),
            (std::vector<std::vector<std::string>>{{"a", "10", "second"}, {"c", "3", "c"}}));

  // A second run: an update of c and a new key, over the same table.
  kafka.produce(topic_,
                {{0, "c", R"({"qty":30,"note":"c2"})"}, {0, "d", R"({"qty":4,"note":"d"})"}});
  runUntilCommitted(props, endOffsets(1, 7), 1);
  EXPECT_EQ(query(fmt::format(R"(SELECT sku, qty, note FROM "{}" ORDER BY sku)", topic_)),
            (std::vector<std::vector<std::string>>{
                {"a", "10", "second"}, {"c", "30", "c2"}, {"d", "4", "d"}}));
  EXPECT_EQ(storedOffsets(), endOffsets(1, 7));
}

TEST_F(SqliteSinkItTest, AutoEvolveAddsTheColumnsOfNewFields) {
  auto& kafka = RealKafka::shared();
  kafka.createTopic(topic_, 1);
  kafka.produce(topic_, {{0, std::nullopt, R"({"id":1})"},
                         {0, std::nullopt, R"({"id":2,"color":"red"})"},
                         {0, std::nullopt, R"({"id":3,"color":"blue","size":9.5})"}});
  runUntilCommitted({{"auto.create", "true"},
                     {"auto.evolve", "true"},
                     {"value.converter.schemas.enable", "false"},
                     {"table.name.format", "evolved_${topic}"}},
                    endOffsets(1, 3), 1);
  EXPECT_EQ(query(fmt::format(R"(SELECT id, color, size FROM "evolved_{}" ORDER BY id)", topic_)),
            (std::vector<std::vector<std::string>>{
                {"1", "NULL", "NULL"}, {"2", "red", "NULL"}, {"3", "blue", "9.5"}}));
}

TEST_F(SqliteSinkItTest, UpdateModeAndAnExistingTableWithoutAutoCreate) {
  auto& kafka = RealKafka::shared();
  kafka.createTopic(topic_, 1);
  execute(fmt::format(R"(CREATE TABLE "{}" (id INTEGER PRIMARY KEY, v TEXT);
                         INSERT INTO "{}" VALUES (1, 'old'), (2, 'old'))",
                      topic_, topic_));
  kafka.produce(topic_, {{0, "1", R"({"v":"new"})"}, {0, "3", R"({"v":"ignored"})"}});
  runUntilCommitted({{"insert.mode", "update"},
                     {"pk.mode", "record_key"},
                     {"pk.fields", "id"},
                     {"key.converter", "json"},
                     {"key.converter.schemas.enable", "false"},
                     {"value.converter.schemas.enable", "false"}},
                    endOffsets(1, 2), 1);
  EXPECT_EQ(query(fmt::format(R"(SELECT id, v FROM "{}" ORDER BY id)", topic_)),
            (std::vector<std::vector<std::string>>{{"1", "new"}, {"2", "old"}}));
}

TEST_F(SqliteSinkItTest,
       ABadRecordWithoutErrorToleranceFailsTheTaskNamingItAndCommitsNothingPastIt) {
  auto& kafka = RealKafka::shared();
  kafka.createTopic(topic_, 1);
  execute(fmt::format(R"(CREATE TABLE "{}" (a INTEGER NOT NULL))", topic_));
  std::vector<RealKafka::Message> messages;
  for (int i = 0; i < 10; ++i)
    messages.push_back(
        {0, std::nullopt, i == 5 ? R"({"a":null})" : fmt::format(R"({{"a":{}}})", i)});
  kafka.produce(topic_, messages);

  auto ksink = startKsink("bad", {{"value.converter.schemas.enable", "false"}});
  const auto status = ksink->wait(60s);
  ASSERT_TRUE(status.has_value()) << "the task did not fail\n" << ksink->log();
  EXPECT_NE(*status, 0);
  EXPECT_NE(ksink->log().find(fmt::format("topic {}, partition 0, offset 5", topic_)),
            std::string::npos)
      << ksink->log();
  // Whatever was committed stops before the bad record, in the table and in the group.
  const auto stored = storedOffsets();
  const int64_t next = stored.empty() ? 0 : stored.at({topic_, 0});
  EXPECT_LE(next, 5);
  EXPECT_EQ(count(fmt::format(R"(SELECT count(*) FROM "{}")", topic_)), next);
  EXPECT_EQ(count(fmt::format(R"(SELECT count(*) FROM "{}" WHERE a >= 5)", topic_)), 0);
  for (const auto& [tp, offset] : kafka.committed(group(), topic_, 1)) EXPECT_LE(offset, 5);
}

// A process whose task failed leaves its consumer group on the way out, so the group does not
// wait for the session to expire (6 s here, 45 s by default) before a restarted process gets the
// partitions.
TEST_F(SqliteSinkItTest, AProcessWhoseTaskFailedHasLeftItsGroupWhenItExits) {
  auto& kafka = RealKafka::shared();
  kafka.createTopic(topic_, 2);
  execute(fmt::format(R"(CREATE TABLE "{}" (a INTEGER NOT NULL))", topic_));
  kafka.produce(topic_, {{0, std::nullopt, R"({"a":1})"}});

  auto ksink = startKsink("fails", {{"value.converter.schemas.enable", "false"}});
  ASSERT_TRUE(waitUntil([&] { return kafka.groupMembers(group()) == 1; }, 60s)) << ksink->log();
  kafka.produce(topic_, {{1, std::nullopt, R"({"a":null})"}});  // fails the task
  const auto status = ksink->wait(60s);
  ASSERT_TRUE(status.has_value()) << "the task did not fail\n" << ksink->log();
  EXPECT_EQ(*status, 1) << ksink->log();
  EXPECT_EQ(kafka.groupMembers(group()), 0) << "the member outlived its process\n" << ksink->log();
}

TEST_F(SqliteSinkItTest, WithErrorToleranceBadRecordsGoToTheDeadLetterQueueAndTheRestIsWritten) {
  auto& kafka = RealKafka::shared();
  kafka.createTopic(topic_, 1);
  const std::string dlq = topic_ + "-dlq";
  execute(fmt::format(R"(CREATE TABLE "{}" (a INTEGER NOT NULL))", topic_));
  std::vector<RealKafka::Message> messages;
  for (int i = 0; i < 10; ++i) {
    std::string value = fmt::format(R"({{"a":{}}})", i);
    if (i == 3) value = R"({"a":null})";  // NOT NULL violation, found by SQLite
    if (i == 6) value = R"({"a":)";       // malformed JSON, found by the converter
    messages.push_back({0, std::nullopt, value});
  }
  kafka.produce(topic_, messages);

  runUntilCommitted({{"value.converter.schemas.enable", "false"},
                     {"errors.tolerance", "all"},
                     {"errors.deadletterqueue.topic.name", dlq},
                     {"errors.deadletterqueue.topic.replication.factor", "1"}},
                    endOffsets(1, 10), 1);
  EXPECT_EQ(
      query(fmt::format(R"(SELECT group_concat(a) FROM (SELECT a FROM "{}" ORDER BY a))", topic_)),
      (testing::Rows{{"0,1,2,4,5,7,8,9"}}));
  EXPECT_EQ(storedOffsets(), endOffsets(1, 10));
  EXPECT_EQ(kafka.endOffset({dlq, 0}), 2);
}

TEST_F(SqliteSinkItTest, KillNineAndRestartFiveTimesWhileStreamingWritesEachRecordExactlyOnce) {
  auto& kafka = RealKafka::shared();
  constexpr int kPartitions = 4, kRecords = 200000;
  kafka.createTopic(topic_, kPartitions);
  // Values are unique ("v<i>") and the table has no key: a duplicate would be a second row.
  const std::map<std::string, std::string> props = {
      {"auto.create", "true"}, {"value.converter", "string"}, {"key.converter", "string"}};
  // Records arrive in bursts for ~45 s: each restart finds a backlog, and the kill lands while
  // it is being written (kills fall within 8 ms of the first progress, seen within 2 ms: the sink
  // writes a 20,000-record burst in well under 100 ms, so a later kill would often find it caught
  // up).
  constexpr int kChunk = 20000;
  std::atomic<int> produced{0};
  std::jthread producer([&] {
    for (int i = 0; i < kRecords; i += kChunk) {
      kafka.produceSequence(topic_, kPartitions, kChunk, "v", i);
      produced += kChunk;
      std::this_thread::sleep_for(4500ms);
    }
  });
  std::mt19937 rng(std::random_device{}());
  const auto table = fmt::format("\"{}\"", topic_);
  auto rows = [&]() -> int64_t {
    if (!fs::exists(db_)) return 0;
    try {
      return count(fmt::format("SELECT count(*) FROM {}", table));
    } catch (const std::exception&) {
      return 0;  // not created yet
    }
  };
  int kills = 0, kills_mid_stream = 0;
  for (int cycle = 0; cycle < 6 && produced < kRecords; ++cycle) {
    // Small batches: many transaction boundaries for the kill to fall between or inside.
    auto ksink = startKsink(fmt::format("cycle{}", cycle), props, 1000, 500);
    // Let it write something new, then kill it at a random moment.
    const int64_t before = rows();
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    while (rows() == before && std::chrono::steady_clock::now() < deadline && ksink->running())
      std::this_thread::sleep_for(2ms);
    ASSERT_TRUE(ksink->running()) << ksink->log();
    ASSERT_GT(rows(), before) << "no progress in cycle " << cycle << "\n" << ksink->log();
    std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 8));
    // What the broker holds (a chunk being produced counts as far as it got).
    int64_t available = 0;
    for (int p = 0; p < kPartitions; ++p) available += kafka.endOffset({topic_, p});
    ksink->signal(SIGKILL);
    ksink->wait(10s);
    ++kills;
    const int64_t in_table = rows();
    if (in_table < available) ++kills_mid_stream;
    fmt::print("cycle {}: kill -9 with {} of {} available records in the table\n", cycle, in_table,
               available);
  }
  producer.join();
  EXPECT_GE(kills, 5);
  EXPECT_GE(kills_mid_stream, 2) << "some kills must hit a process with records still to write";

  const auto expected = endOffsets(kPartitions, kRecords / kPartitions);
  runUntilCommitted(props, expected, kPartitions);
  EXPECT_EQ(count(fmt::format("SELECT count(*) FROM {}", table)), kRecords);
  EXPECT_EQ(count(fmt::format("SELECT count(DISTINCT value) FROM {}", table)), kRecords);
  EXPECT_EQ(storedOffsets(), expected);
}

TEST_F(SqliteSinkItTest,
       TwoProcessesOnOneFileWithPartitionsMovingWriteEachRecordOnceWithoutLockErrors) {
  auto& kafka = RealKafka::shared();
  constexpr int kPartitions = 4, kBatches = 100, kBatchSize = 200;
  kafka.createTopic(topic_, kPartitions);
  const std::map<std::string, std::string> props = {
      {"auto.create", "true"}, {"value.converter", "string"}, {"sqlite.busy.timeout.ms", "10000"}};
  std::jthread producer([&] {
    for (int b = 0; b < kBatches; ++b) {
      kafka.produceSequence(topic_, kPartitions, kBatchSize, "v", b * kBatchSize);
      std::this_thread::sleep_for(150ms);
    }
  });
  auto a = startKsink("a", props);
  std::this_thread::sleep_for(3s);
  auto b = startKsink("b", props);  // joins: partitions move from a to b
  std::this_thread::sleep_for(5s);
  a->signal(SIGTERM);  // leaves: everything moves to b
  EXPECT_EQ(a->wait(30s), 0) << a->log();
  auto a2 = startKsink("a2", props);  // comes back: partitions move again
  producer.join();

  const int64_t total = kBatches * kBatchSize;
  const auto expected = endOffsets(kPartitions, total / kPartitions);
  EXPECT_EQ(kafka.waitForCommitted(group(), topic_, kPartitions, expected, 90s), expected);
  b->signal(SIGTERM);
  a2->signal(SIGTERM);
  EXPECT_EQ(b->wait(30s), 0) << b->log();
  EXPECT_EQ(a2->wait(30s), 0) << a2->log();

  const auto table = fmt::format("\"{}\"", topic_);
  EXPECT_EQ(count("SELECT count(*) FROM " + table), total);
  EXPECT_EQ(count("SELECT count(DISTINCT value) FROM " + table), total);
  EXPECT_EQ(storedOffsets(), expected);
  for (const auto* p : {a.get(), b.get(), a2.get()}) {
    EXPECT_EQ(p->log().find("database is locked"), std::string::npos) << p->log();
    EXPECT_NE(p->log().find("opened " + topic_), std::string::npos) << "never got partitions\n"
                                                                    << p->log();
  }
}

}  // namespace
}  // namespace ksink::it
