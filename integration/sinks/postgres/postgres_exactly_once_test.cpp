// Exactly once into PostgreSQL, with real `ksink` processes, a real broker and a real server:
// kill -9 and restart, processes joining and leaving, a zombie process (SIGSTOP until its
// partitions are written by another, then SIGCONT), and a database down at start and restarted
// mid-stream. The check
// is always the table: every record once — count and distinct (topic, partition, offset) equal the
// number produced — and the offsets stored beside the rows equal the partitions' end offsets.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <fstream>
#include <functional>
#include <random>
#include <thread>

#include "child_process.h"
#include "polling.h"
#include "test_kafka.h"
#include "test_postgres.h"

namespace ksink::it {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

class PostgresExactlyOnceTest : public ::testing::Test {
 protected:
  static constexpr int kPartitions = 6;

  void SetUp() override {
    dir_ = freshDir("ksink-pg-eos");
    topic_ = uniqueName("eos");
    name_ = uniqueName("pgeos");
    kafka_->createTopic(topic_, kPartitions);
  }

  // Moves the test to its own broker (a test that restarts it).
  void useBroker(RealKafka& kafka) {
    kafka_ = &kafka;
    kafka_->createTopic(topic_, kPartitions);
  }

  // The table has no key, so a duplicate would be a second row, not an error.
  void useSchema(PgTestSchema& schema) {
    schema_ = &schema;
    schema.exec(
        fmt::format("CREATE TABLE \"{}\" (__connect_topic text, __connect_partition int4, "
                    "__connect_offset int8, i int8, pad text)",
                    topic_));
  }

  std::unique_ptr<ChildProcess> startKsink(const std::string& tag, const std::string& extra = "") {
    const auto worker = dir_ / (tag + "-worker.properties");
    std::ofstream(worker) << fmt::format(
        "bootstrap.servers={}\nexit.on.task.failure=true\nlisteners=\noffset.flush.interval.ms="
        "1000\n"
        "consumer.session.timeout.ms=6000\nconsumer.heartbeat.interval.ms=500\n",
        kafka_->bootstrap());
    const auto connector = dir_ / (tag + "-connector.properties");
    std::ofstream(connector) << fmt::format(
        "name={}\nconnector.class={}\ntopics={}\nconnection.url={}\ninsert.mode=insert\n"
        "pk.mode=kafka\nvalue.converter.schemas.enable=false\nkey.converter=string\n"
        "consumer.max.poll.records=2000\nretry.backoff.ms=500\n{}\n",
        name_, connector_class_, topic_, schema_->url(), extra);
    return std::make_unique<ChildProcess>(
        std::vector<std::string>{KSINK_BIN, "run", worker.string(), connector.string()},
        dir_ / (tag + ".log"));
  }

  // Produces records [first, end): record i goes to partition i % kPartitions.
  void produce(int first, int end) {
    std::vector<RealKafka::Message> batch;
    for (int i = first; i < end; ++i)
      batch.push_back({i % kPartitions, "k" + std::to_string(i),
                       fmt::format(R"({{"i":{},"pad":"{:0>40}"}})", i, i)});
    kafka_->produce(topic_, batch);
  }

  // Produces `total` records in batches on a thread, `per_second` of them a second.
  void startProducing(int total, int per_second) {
    total_ = total;
    producer_ = std::thread([this, total, per_second] {
      constexpr int kBatch = 1000;
      const auto pause = std::chrono::milliseconds(1000 * kBatch / per_second);
      for (int first = 0; first < total; first += kBatch) {
        produce(first, std::min(total, first + kBatch));
        std::this_thread::sleep_for(pause);
      }
      producing_done_ = true;
    });
  }
  void finishProducing() {
    if (producer_.joinable()) producer_.join();
  }
  void TearDown() override { finishProducing(); }

  int64_t rows() { return schema_->count(topic_); }

  // Stored next offsets per partition (empty before the sink created ksink_offsets).
  std::map<int, int64_t> storedOffsets() {
    std::map<int, int64_t> out;
    if (schema_->scalar("SELECT to_regclass('ksink_offsets') IS NOT NULL") != "t") return out;
    for (const auto& row : schema_->query(fmt::format(
             "SELECT \"partition\", next_offset FROM ksink_offsets WHERE connector = '{}'", name_)))
      out[std::stoi(*row[0])] = std::stoll(*row[1]);
    return out;
  }

  std::map<int, int64_t> endOffsets() {
    std::map<int, int64_t> out;
    for (int p = 0; p < kPartitions; ++p) out[p] = kafka_->endOffset({topic_, p});
    return out;
  }

  // Waits until every record is in the table, then checks exactly once.
  void expectExactlyOnce() {
    finishProducing();
    if (HasFatalFailure()) return;
    const auto end = endOffsets();
    EXPECT_TRUE(waitUntil([&] { return storedOffsets() == end; }, 120s))
        << "stored offsets never reached the end offsets; rows: " << rows();
    EXPECT_EQ(rows(), total_);
    EXPECT_EQ(schema_->scalar(fmt::format(
                  "SELECT count(DISTINCT (__connect_topic, __connect_partition, __connect_offset)) "
                  "FROM \"{}\"",
                  topic_)),
              std::to_string(total_));
    EXPECT_EQ(schema_->scalar(fmt::format("SELECT count(DISTINCT i) FROM \"{}\"", topic_)),
              std::to_string(total_));
    EXPECT_EQ(storedOffsets(), end);
  }

  RealKafka* kafka_ = &RealKafka::shared();
  fs::path dir_;
  std::string topic_;
  std::string name_;
  std::string connector_class_ = "postgres";
  PgTestSchema* schema_ = nullptr;
  std::thread producer_;
  std::atomic<bool> producing_done_{false};
  int64_t total_ = 0;
};

TEST_F(PostgresExactlyOnceTest, KillNineAndRestartAtRandomMomentsWritesEveryRecordOnce) {
  auto schema = TestPostgres::shared().freshSchema("eos");
  useSchema(*schema);
  const auto seed = std::random_device{}();
  std::mt19937 random(seed);
  SCOPED_TRACE(fmt::format("random seed {}", seed));

  startProducing(200000, 8000);  // ~25 s of traffic
  auto ksink = startKsink("run0");
  int kills = 0;
  while (kills < 5 || !producing_done_) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500 + random() % 2500));
    ksink->signal(SIGKILL);
    ASSERT_TRUE(ksink->wait(10s).has_value());
    ++kills;
    ksink = startKsink(fmt::format("run{}", kills));
  }
  EXPECT_GE(kills, 5);
  expectExactlyOnce();
  ksink->signal(SIGTERM);
  EXPECT_EQ(ksink->wait(30s), 0) << ksink->log();
}

TEST_F(PostgresExactlyOnceTest, ProcessesJoiningAndLeavingWhileRecordsFlowWriteEveryRecordOnce) {
  auto schema = TestPostgres::shared().freshSchema("eos");
  useSchema(*schema);
  startProducing(60000, 4000);  // ~15 s
  auto a = startKsink("a");
  std::this_thread::sleep_for(3s);
  auto b = startKsink("b");
  std::this_thread::sleep_for(3s);
  auto c = startKsink("c");
  std::this_thread::sleep_for(3s);
  b->signal(SIGTERM);
  EXPECT_EQ(b->wait(30s), 0) << b->log();
  std::this_thread::sleep_for(2s);
  c->signal(SIGTERM);
  EXPECT_EQ(c->wait(30s), 0) << c->log();
  expectExactlyOnce();
  EXPECT_TRUE(a->running()) << a->log();
  a->signal(SIGTERM);
  EXPECT_EQ(a->wait(30s), 0) << a->log();
}

TEST_F(PostgresExactlyOnceTest, AZombieProcessWritesNothingAfterItsPartitionsMoved) {
  auto schema = TestPostgres::shared().freshSchema("eos");
  useSchema(*schema);
  // Every COPY takes a while, so the SIGSTOP most likely catches the zombie inside a batch's
  // transaction, which it then tries to finish after SIGCONT.
  schema->exec(fmt::format(
      "CREATE FUNCTION slow() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM "
      "pg_sleep(0.3); RETURN NULL; END $$; CREATE TRIGGER slow BEFORE INSERT ON \"{}\" FOR "
      "EACH STATEMENT EXECUTE FUNCTION slow()",
      topic_));
  startProducing(60000, 3000);  // ~20 s
  auto zombie = startKsink("zombie");
  auto other = startKsink("other");
  // Both members own partitions and write.
  ASSERT_TRUE(waitUntil([&] { return storedOffsets().size() == kPartitions; }, 60s));
  std::this_thread::sleep_for(2s);
  zombie->signal(SIGSTOP);
  const auto at_stop = storedOffsets();
  // Every partition gets records after the stop, so the zombie's have some left for `other` to
  // write even when the first wave had ended (and been written) by then.
  finishProducing();
  produce(total_, total_ + 100 * kPartitions);
  total_ += 100 * kPartitions;
  // The group evicts the stopped member (session timeout) and `other` writes every partition,
  // including those the zombie held — possibly with a batch in flight.
  const bool moved = waitUntil(
      [&] {
        const auto now = storedOffsets();
        for (const auto& [p, offset] : at_stop)
          if (now.at(p) <= offset) return false;
        return true;
      },
      90s);
  zombie->signal(SIGCONT);
  ASSERT_TRUE(moved) << "the other process never wrote every partition";
  expectExactlyOnce();
  EXPECT_TRUE(zombie->running()) << zombie->log();
  zombie->signal(SIGTERM);
  other->signal(SIGTERM);
  EXPECT_EQ(zombie->wait(30s), 0) << zombie->log();
  EXPECT_EQ(other->wait(30s), 0) << other->log();
}

// The server is down when the process starts (it waits, connection.attempts times at most), and
// restarts once mid-stream.
TEST_F(PostgresExactlyOnceTest, ADatabaseDownAtStartAndRestartedMidStreamLosesNothing) {
  PostgresServerProcess server(freshDir("ksink-pg-restart"));
  TestPostgres own(server.start());
  auto schema = own.freshSchema("eos");
  useSchema(*schema);
  server.stop();
  // Configured as a Confluent JDBC sink would be: the class picks this sink by the URL.
  connector_class_ = "io.confluent.connect.jdbc.JdbcSinkConnector";
  startProducing(40000, 4000);  // ~10 s
  auto ksink = startKsink("run", "connection.attempts=100\nconnection.backoff.ms=300");
  ASSERT_TRUE(
      waitUntil([&] { return ksink->log().find("attempt 3 of 100") != std::string::npos; }, 30s))
      << ksink->log();
  EXPECT_TRUE(ksink->running()) << ksink->log();
  server.start();
  ASSERT_TRUE(waitUntil([&] { return rows() > 0; }, 60s)) << ksink->log();
  std::this_thread::sleep_for(2s);
  server.stop();
  std::this_thread::sleep_for(4s);
  EXPECT_TRUE(ksink->running()) << ksink->log();
  server.start();
  expectExactlyOnce();
  EXPECT_TRUE(ksink->running()) << ksink->log();
  ksink->signal(SIGTERM);
  EXPECT_EQ(ksink->wait(30s), 0) << ksink->log();
}

// Cooperative assignment (incremental rebalances), two tasks per process: a second process
// joins, the first is killed with -9 and restarted, the second leaves. Every record once.
TEST_F(PostgresExactlyOnceTest,
       CooperativeTwoTasksThroughKillNineAndRebalancesWriteEveryRecordOnce) {
  auto schema = TestPostgres::shared().freshSchema("eos");
  useSchema(*schema);
  const std::string extra =
      "tasks.max=2\nconsumer.override.partition.assignment.strategy=cooperative-sticky";
  startProducing(60000, 4000);  // ~15 s
  auto a = startKsink("a", extra);
  ASSERT_TRUE(waitUntil([&] { return rows() > 0; }, 60s)) << a->log();
  auto b = startKsink("b", extra);
  std::this_thread::sleep_for(4s);
  a->signal(SIGKILL);
  ASSERT_TRUE(a->wait(10s).has_value());
  auto a2 = startKsink("a2", extra);
  std::this_thread::sleep_for(4s);
  b->signal(SIGTERM);
  EXPECT_EQ(b->wait(30s), 0) << b->log();
  expectExactlyOnce();
  a2->signal(SIGTERM);
  EXPECT_EQ(a2->wait(30s), 0) << a2->log();
}

// Two tasks in one process starting under auto.offset.reset=latest: what was in the topic before
// the group had offsets is skipped, everything after it is written once.
TEST_F(PostgresExactlyOnceTest, TwoTasksStartingAtLatestWriteOnlyWhatCameAfterTheirStart) {
  auto schema = TestPostgres::shared().freshSchema("eos");
  useSchema(*schema);
  produce(0, 600);  // before the start: skipped
  auto ksink = startKsink("run", "tasks.max=2\nconsumer.override.auto.offset.reset=latest");
  // A trickle until the first row shows the partitions are assigned, then the real load.
  int next = 600;
  while (rows() == 0 && next < 600 + 60 * kPartitions) {
    produce(next, next + kPartitions);
    next += kPartitions;
    std::this_thread::sleep_for(500ms);
  }
  ASSERT_GT(rows(), 0) << ksink->log();
  std::this_thread::sleep_for(1s);  // every task has its partitions by now
  const int load_from = next;
  produce(load_from, load_from + 6000);
  const auto end = endOffsets();
  ASSERT_TRUE(waitUntil([&] { return storedOffsets() == end; }, 120s)) << ksink->log();
  EXPECT_EQ(schema->count(topic_, "i < 600"), 0);
  EXPECT_EQ(schema->count(topic_, fmt::format("i >= {}", load_from)), 6000);
  EXPECT_EQ(schema->scalar(fmt::format(
                "SELECT count(*) = count(DISTINCT (__connect_partition, __connect_offset)) "
                "FROM \"{}\"",
                topic_)),
            "t");
  EXPECT_NE(ksink->log().find("task " + name_ + "-1 started"), std::string::npos) << ksink->log();
  ksink->signal(SIGTERM);
  EXPECT_EQ(ksink->wait(30s), 0) << ksink->log();
}

// The broker stops mid-stream and comes back on the same data directory and port: the sink
// waits, resumes, and writes every record once.
TEST_F(PostgresExactlyOnceTest, ABrokerRestartMidStreamWritesEveryRecordOnce) {
  KafkaBrokerProcess broker(freshDir("ksink-kafka-restart"));
  RealKafka kafka(broker.start());
  useBroker(kafka);
  auto schema = TestPostgres::shared().freshSchema("eos");
  useSchema(*schema);
  startProducing(40000, 4000);  // ~10 s; the producer waits out the outage
  auto ksink = startKsink("run");
  ASSERT_TRUE(waitUntil([&] { return rows() > 0; }, 60s)) << ksink->log();
  std::this_thread::sleep_for(2s);
  broker.stop();
  std::this_thread::sleep_for(5s);
  EXPECT_TRUE(ksink->running()) << ksink->log();
  broker.start();
  expectExactlyOnce();
  EXPECT_TRUE(ksink->running()) << ksink->log();
  ksink->signal(SIGTERM);
  EXPECT_EQ(ksink->wait(30s), 0) << ksink->log();
}

}  // namespace
}  // namespace ksink::it
