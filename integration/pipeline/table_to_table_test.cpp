// The whole pipeline, exactly once: a PostgreSQL table written to continuously → ksink's table
// source (exactly-once, a `ksink run` process) → Kafka → ksink's PostgreSQL sink (another
// process) → a copy. During the run: kill -9 of the source process, kill -9 of the sink process,
// a PostgreSQL restart and a broker restart. At the end the copy equals the table row for row,
// and every row was written once: a trigger counts the writes of each copy row.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <fstream>
#include <thread>

#include "child_process.h"
#include "polling.h"
#include "test_kafka.h"
#include "test_postgres.h"

namespace ksink::it {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

class TableToTableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = freshDir("pipeline");
    name_ = uniqueName("pipe");
    server_ = std::make_unique<PostgresServerProcess>(freshDir("pipeline-pg"));
    postgres_ = std::make_unique<TestPostgres>(server_->start());
    schema_ = postgres_->freshSchema("pipe");
    schema_->exec(
        "CREATE TABLE orders (id bigserial PRIMARY KEY, customer int NOT NULL, "
        "amount numeric(12,2) NOT NULL, note text)");
    // The copy counts how often each of its rows was written.
    schema_->exec(
        "CREATE TABLE copy (id bigint PRIMARY KEY, customer int, amount numeric(12,2), "
        "note text, writes int NOT NULL DEFAULT 0);"
        "CREATE FUNCTION count_writes() RETURNS trigger AS $$ BEGIN "
        "NEW.writes := CASE WHEN TG_OP = 'INSERT' THEN 1 ELSE OLD.writes + 1 END; RETURN NEW; "
        "END $$ LANGUAGE plpgsql;"
        "CREATE TRIGGER count_writes BEFORE INSERT OR UPDATE ON copy FOR EACH ROW EXECUTE "
        "FUNCTION count_writes()");
    broker_ = std::make_unique<KafkaBrokerProcess>(freshDir("pipeline-kafka"));
    kafka_ = std::make_unique<RealKafka>(broker_->start());
    kafka_->createTopic(topic(), 1);
  }
  void TearDown() override { stopWriting(); }

  std::string topic() const { return name_ + "-orders"; }

  // Inserts a few rows every few milliseconds, in transactions of their own, through restarts.
  void startWriting() {
    writer_ = std::thread([this] {
      PgTestSchema db(server_->url(), schema_->name());
      int n = 0;
      while (!stop_writing_) {
        try {
          db.exec(fmt::format(
              "INSERT INTO orders (customer, amount, note) SELECT {0} + g, ({0} + g) * 1.25, "
              "CASE WHEN g % 3 = 0 THEN NULL ELSE 'order ' || ({0} + g) END "
              "FROM generate_series(1, 5) g",
              n));
          n += 5;
        } catch (const std::exception&) {
          std::this_thread::sleep_for(100ms);  // the server is restarting
        }
        std::this_thread::sleep_for(10ms);
      }
    });
  }
  void stopWriting() {
    stop_writing_ = true;
    if (writer_.joinable()) writer_.join();
  }

  std::unique_ptr<ChildProcess> startSource(const std::string& tag) {
    const auto worker = dir_ / "source-worker.properties";
    std::ofstream(worker) << fmt::format(
        "bootstrap.servers={}\noffset.storage.topic={}-offsets\n"
        "offset.storage.replication.factor=1\nexactly.once.source.support=enabled\nlisteners=\n",
        kafka_->bootstrap(), name_);
    const auto connector = dir_ / "source.properties";
    std::ofstream(connector) << fmt::format(
        "name={}-source\nconnector.class=io.confluent.connect.jdbc.JdbcSourceConnector\n"
        "connection.url={}\nmode=incrementing\nincrementing.column.name=id\n"
        "table.whitelist=orders\nschema.pattern={}\ntopic.prefix={}-\npoll.interval.ms=100\n"
        "batch.max.rows=200\nexactly.once.support=required\n"
        // Reconnects for ~10 s while the server restarts (3 s down, then its start).
        "connection.attempts=20\nconnection.backoff.ms=500\n",
        name_, schema_->url(), schema_->name(), name_);
    return std::make_unique<ChildProcess>(
        std::vector<std::string>{KSINK_BIN, "run", worker.string(), connector.string()},
        dir_ / (tag + ".log"));
  }

  std::unique_ptr<ChildProcess> startSink(const std::string& tag) {
    const auto worker = dir_ / "sink-worker.properties";
    std::ofstream(worker) << fmt::format(
        "bootstrap.servers={}\noffset.flush.interval.ms=1000\nlisteners=\n"
        "consumer.session.timeout.ms=6000\n",
        kafka_->bootstrap());
    const auto connector = dir_ / "sink.properties";
    std::ofstream(connector) << fmt::format(
        "name={}-sink\nconnector.class=io.confluent.connect.jdbc.JdbcSinkConnector\n"
        "connection.url={}\ntopics={}\ntable.name.format=copy\ninsert.mode=upsert\n"
        "pk.mode=record_value\npk.fields=id\nretry.backoff.ms=500\n",
        name_, schema_->url(), topic());
    return std::make_unique<ChildProcess>(
        std::vector<std::string>{KSINK_BIN, "run", worker.string(), connector.string()},
        dir_ / (tag + ".log"));
  }

  int64_t copied() {
    try {
      return schema_->count("copy");
    } catch (const std::exception&) {
      return -1;  // the server is restarting
    }
  }

  // Waits until the copy has grown by `rows` (the pipeline runs).
  void awaitProgress(int64_t rows, const ChildProcess& source, const ChildProcess& sink) {
    const auto before = copied();
    ASSERT_TRUE(waitUntil([&] { return copied() >= before + rows; }, 90s, 100ms))
        << "copy stuck at " << copied() << "\n--- source\n"
        << source.log() << "\n--- sink\n"
        << sink.log();
  }

  fs::path dir_;
  std::string name_;
  std::unique_ptr<PostgresServerProcess> server_;
  std::unique_ptr<TestPostgres> postgres_;
  std::unique_ptr<PgTestSchema> schema_;
  std::unique_ptr<KafkaBrokerProcess> broker_;
  std::unique_ptr<RealKafka> kafka_;
  std::thread writer_;
  std::atomic<bool> stop_writing_{false};
};

TEST_F(TableToTableTest, TheCopyEqualsTheTableAndEveryRowIsWrittenOnceThroughEveryFault) {
  startWriting();
  auto source = startSource("source-1");
  auto sink = startSink("sink-1");
  ASSERT_NO_FATAL_FAILURE(awaitProgress(200, *source, *sink));

  source->signal(SIGKILL);  // the source process dies mid-stream
  source->wait(10s);
  source = startSource("source-2");
  ASSERT_NO_FATAL_FAILURE(awaitProgress(200, *source, *sink));

  sink->signal(SIGKILL);  // the sink process dies mid-stream
  sink->wait(10s);
  sink = startSink("sink-2");
  ASSERT_NO_FATAL_FAILURE(awaitProgress(200, *source, *sink));

  server_->stop();  // PostgreSQL restarts: the writer, the source and the sink lose it
  std::this_thread::sleep_for(3s);
  server_->start();
  ASSERT_NO_FATAL_FAILURE(awaitProgress(200, *source, *sink));

  broker_->stop();  // the broker restarts
  std::this_thread::sleep_for(4s);
  broker_->start();
  ASSERT_NO_FATAL_FAILURE(awaitProgress(200, *source, *sink));

  stopWriting();
  const auto rows = schema_->count("orders");
  ASSERT_TRUE(waitUntil([&] { return copied() == rows; }, 90s, 200ms))
      << copied() << " of " << rows << "\n--- source\n"
      << source->log() << "\n--- sink\n"
      << sink->log();
  EXPECT_TRUE(source->running()) << source->log();
  EXPECT_TRUE(sink->running()) << sink->log();
  const auto original = schema_->query("SELECT id, customer, amount, note FROM orders ORDER BY id");
  const auto copy = schema_->query("SELECT id, customer, amount, note FROM copy ORDER BY id");
  EXPECT_EQ(copy, original) << "the copy equals the table row for row";
  EXPECT_EQ(schema_->count("copy", "writes <> 1"), 0)
      << "rows written more than once: "
      << schema_
             ->scalar(
                 "SELECT string_agg(id || 'x' || writes, ', ') FROM copy "
                 "WHERE writes <> 1")
             .value_or("");
  RecordProperty("rows", static_cast<int>(rows));
  source->signal(SIGTERM);
  sink->signal(SIGTERM);
  EXPECT_EQ(source->wait(30s), 0) << source->log();
  EXPECT_EQ(sink->wait(30s), 0) << sink->log();
}

}  // namespace
}  // namespace ksink::it
