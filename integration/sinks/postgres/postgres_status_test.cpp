// /status and /metrics of a PostgreSQL sink on a real broker and a real server, asserted on
// values: end offsets and lag per partition, sink_record_lag_max, put_batch_* and the error
// metrics of a record sent to the dead-letter queue.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <mutex>
#include <regex>
#include <thread>

#include "free_port.h"
#include "ksink/ksink.h"
#include "ksink/postgres/postgres_sink_task.h"
#include "polling.h"
#include "status_server.h"
#include "test_kafka.h"
#include "test_postgres.h"

namespace ksink::it {
namespace {

using namespace std::chrono_literals;

// A worker with its status listener, running until destroyed.
class Observed {
 public:
  explicit Observed(std::map<std::string, std::string> props)
      : worker_(config(std::move(props)),
                [] { return std::make_unique<postgres::PostgresSinkTask>(); }),
        server_("http://127.0.0.1:0",
                [this] { return std::vector<ConnectorStatus>{worker_.status()}; }),
        client_("127.0.0.1", server_.port()),
        thread_([this] {
          try {
            worker_.run();
          } catch (const std::exception& e) {
            std::lock_guard lock(mutex_);
            error_ = e.what();
          }
        }) {}
  ~Observed() {
    worker_.stop();
    thread_.join();
  }

  std::string get(const std::string& path) {
    auto res = client_.Get(path);
    return res ? res->body : "";
  }
  // The value of a task-0 metric, or -1.
  double metric(const std::string& name) {
    std::smatch m;
    const std::string text = get("/metrics");
    const std::regex line(name + R"(\{connector="[^"]*",task="0"\} ([0-9.e+-]+))");
    return std::regex_search(text, m, line) ? std::stod(m[1]) : -1;
  }
  // One partition's entry in /status: {delivered, confirmed, committed, end, lag}; empty if absent.
  std::vector<std::string> partition(const std::string& topic, int p) {
    std::smatch m;
    const std::string text = get("/status");
    const std::regex entry(fmt::format(
        R"re("topic":"{}","partition":{},"delivered":([0-9a-z]+),"confirmed":([0-9a-z]+),"committed":([0-9a-z]+),"end":([0-9a-z]+),"lag":([0-9a-z]+))re",
        topic, p));
    if (!std::regex_search(text, m, entry)) return {};
    return {m[1], m[2], m[3], m[4], m[5]};
  }
  std::string error() const {
    std::lock_guard lock(mutex_);
    return error_;
  }

 private:
  static Config config(std::map<std::string, std::string> props) {
    ConfigDef def = Worker::configDef();
    def.include(postgres::PostgresSinkTask::configDef());
    return Config(std::move(props), std::move(def));
  }

  Worker worker_;
  StatusServer server_;
  httplib::Client client_;
  mutable std::mutex mutex_;  // guards error_, set on the worker's thread
  std::string error_;
  std::thread thread_;
};

TEST(PostgresStatusTest, StatusAndMetricsShowEndOffsetsLagBatchTimesAndErrors) {
  auto& kafka = RealKafka::shared();
  auto schema = TestPostgres::shared().freshSchema("status");
  const auto topic = uniqueName("status"), name = uniqueName("status"), dlq = uniqueName("dlq");
  kafka.createTopic(topic, 2);
  kafka.createTopic(dlq, 1);
  schema->exec(fmt::format("CREATE TABLE \"{}\" (id int4)", topic));
  std::vector<RealKafka::Message> messages;
  for (int p = 0; p < 2; ++p)
    for (int i = 0; i < 100; ++i)
      messages.push_back({p, std::nullopt,
                          p == 1 && i == 50 ? std::string(R"({"id":"not a number"})")
                                            : fmt::format(R"({{"id":{}}})", p * 100 + i)});
  kafka.produce(topic, messages);
  std::map<std::string, std::string> props{
      {"name", name},
      {"connector.class", "postgres"},
      {"topics", topic},
      {"bootstrap.servers", kafka.bootstrap()},
      {"connection.url", schema->url()},
      {"value.converter.schemas.enable", "false"},
      {"consumer.override.session.timeout.ms", "10000"},
      {"consumer.max.poll.records", "30"},
      {"errors.tolerance", "all"},
      {"errors.deadletterqueue.topic.name", dlq},
      {"errors.deadletterqueue.topic.replication.factor", "1"}};

  // No commit within the test (the default interval is a minute): every row is written, and the
  // lag — end minus what preCommit() confirmed — is still the whole partition.
  {
    Observed sink(props);
    ASSERT_TRUE(waitUntil(
        [&] {
          return sink.partition(topic, 0).size() == 5 && sink.partition(topic, 0)[0] == "100" &&
                 sink.partition(topic, 1).size() == 5 && sink.partition(topic, 1)[0] == "100";
        },
        60s))
        << sink.get("/status") << sink.error();
    EXPECT_TRUE(waitUntil([&] { return schema->count(topic) == 199; }, 30s));
    for (int p = 0; p < 2; ++p) {
      // The end offsets are refreshed a few times a second.
      ASSERT_TRUE(waitUntil([&] { return sink.partition(topic, p)[3] == "100"; }, 10s))
          << sink.get("/status");
      EXPECT_EQ(sink.partition(topic, p), (std::vector<std::string>{"100", "0", "0", "100", "100"}))
          << sink.get("/status");
    }
    EXPECT_EQ(sink.metric("kafka_connect_sink_task_metrics_sink_record_lag_max"), 100);
    EXPECT_EQ(sink.metric("kafka_connect_sink_task_metrics_sink_record_read_total"), 200);
    EXPECT_EQ(sink.metric("kafka_connect_sink_task_metrics_sink_record_send_total"), 200);
    EXPECT_EQ(sink.metric("kafka_connect_sink_task_metrics_sink_record_active_count"), 200);
    const double avg = sink.metric("kafka_connect_sink_task_metrics_put_batch_avg_time_ms");
    const double max = sink.metric("kafka_connect_sink_task_metrics_put_batch_max_time_ms");
    EXPECT_GT(avg, 0);
    EXPECT_GE(max, avg);
    EXPECT_EQ(sink.metric("kafka_connect_task_error_metrics_total_record_errors"), 1);
    EXPECT_EQ(sink.metric("kafka_connect_task_error_metrics_total_records_skipped"), 1);
    EXPECT_EQ(sink.metric("kafka_connect_task_error_metrics_deadletterqueue_produce_requests"), 1);
    EXPECT_EQ(sink.metric("kafka_connect_task_error_metrics_deadletterqueue_produce_failures"), 0);
    EXPECT_GT(sink.metric("kafka_connect_task_error_metrics_last_error_timestamp"), 0);
  }
  // The next run starts from the stored offsets and commits them: no lag left.
  props["offset.flush.interval.ms"] = "500";
  Observed sink(props);
  ASSERT_TRUE(waitUntil(
      [&] {
        return sink.partition(topic, 0) ==
                   std::vector<std::string>{"100", "100", "100", "100", "0"} &&
               sink.partition(topic, 1) ==
                   std::vector<std::string>{"100", "100", "100", "100", "0"};
      },
      60s))
      << sink.get("/status");
  EXPECT_EQ(sink.metric("kafka_connect_sink_task_metrics_sink_record_lag_max"), 0);
  EXPECT_EQ(sink.metric("kafka_connect_sink_task_metrics_sink_record_read_total"), 0);
  EXPECT_EQ(kafka.committed("connect-" + name, topic, 2),
            (OffsetMap{{{topic, 0}, 100}, {{topic, 1}, 100}}));
  EXPECT_EQ(schema->count(topic), 199);
  EXPECT_EQ(kafka.endOffset({dlq, 0}), 1);
  EXPECT_EQ(sink.error(), "");
}

// A server that cannot be reached at start is tried connection.attempts times,
// connection.backoff.ms apart, as Confluent's JDBC connectors bound it: /status shows the task
// RUNNING with why it waits, then the task fails with the reason.
TEST(PostgresStatusTest, AServerAwayAtStartIsTriedConnectionAttemptsTimesThenTheTaskFails) {
  const auto topic = uniqueName("away"), name = uniqueName("away");
  RealKafka::shared().createTopic(topic, 1);
  std::map<std::string, std::string> props{
      {"name", name},
      {"connector.class", "postgres"},
      {"topics", topic},
      {"bootstrap.servers", RealKafka::shared().bootstrap()},
      {"connection.url", fmt::format("postgresql://ksink@127.0.0.1:{}/ksink", test::freePort())},
      {"connection.attempts", "3"},
      {"connection.backoff.ms", "700"}};
  const auto started = std::chrono::steady_clock::now();
  Observed sink(props);
  std::string shown;
  EXPECT_TRUE(waitUntil(
      [&] {
        shown = sink.get("/status");
        return shown.find("attempt 1 of 3") != std::string::npos;
      },
      10s))
      << shown;
  EXPECT_NE(shown.find(R"("state":"RUNNING")"), std::string::npos) << shown;
  EXPECT_NE(shown.find("cannot connect to PostgreSQL"), std::string::npos) << shown;
  ASSERT_TRUE(waitUntil([&] { return !sink.error().empty(); }, 20s)) << sink.get("/status");
  const auto took = std::chrono::steady_clock::now() - started;
  EXPECT_NE(sink.error().find("cannot connect to PostgreSQL: 3 failed attempts in a row, 700 ms "
                              "apart (connection.attempts, connection.backoff.ms)"),
            std::string::npos)
      << sink.error();
  EXPECT_GE(took, 1400ms) << "two waits of connection.backoff.ms";
  EXPECT_NE(sink.get("/status").find(R"("state":"FAILED")"), std::string::npos)
      << sink.get("/status");
}

}  // namespace
}  // namespace ksink::it
