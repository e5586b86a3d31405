// errors.tolerance, the errant record reporter and the dead-letter queue (scenarios 34, 35, 38 of
// the Connect sink acceptance scenarios), and the metrics/status endpoint (scenario 40), on the
// embedded broker: what the DLQ topic holds, what the group committed, what /metrics serves.
#include <gtest/gtest.h>
#include <httplib.h>

#include <mutex>
#include <regex>
#include <thread>

#include "ksink/conversion_error.h"
#include "ksink/ksink.h"
#include "status_server.h"
#include "support/mock_cluster.h"
#include "support/topic_reader.h"
#include "support/worker_runner.h"

namespace ksink::test {
namespace {

using namespace std::chrono_literals;

// Writes values as they come, except values starting with "bad", which it hands to the errant
// record reporter as a conversion failure (what a sink does with a record it cannot parse).
struct Written {
  std::mutex mutex;
  std::vector<std::string> values;
  size_t count() {
    std::lock_guard lock(mutex);
    return values.size();
  }
};

class ReportingSink : public SinkTask {
 public:
  explicit ReportingSink(std::shared_ptr<Written> written) : written_(std::move(written)) {}
  void start(const Config&) override {}
  void put(std::span<const SinkRecord> records) override {
    for (const auto& r : records) {
      const std::string value(r.value().value_or(""));
      if (value.starts_with("bad")) {
        auto* reporter = context().errantRecordReporter();
        if (!reporter) throw ConversionError("cannot parse " + value);
        reporter->report(r, ConversionError("cannot parse " + value));
        continue;
      }
      std::lock_guard lock(written_->mutex);
      written_->values.push_back(value);
    }
  }
  void stop() override {}

 private:
  std::shared_ptr<Written> written_;
};

std::vector<TestRecord> tenWithOneBad() {
  std::vector<TestRecord> records;
  for (int i = 0; i < 10; ++i)
    records.push_back({"k" + std::to_string(i), (i == 7 ? "bad" : "v") + std::to_string(i)});
  return records;
}

std::vector<ConsumedRecord> readTopic(const std::string& bootstrap, const std::string& topic,
                                      size_t expected) {
  return readPartition(bootstrap, topic, 0, expected, 5s);
}

TEST(WorkerErrors, S35_ToleranceAllSkipsThePoisonPillToTheDlqAndCommitsPastIt) {
  MockCluster mock;
  const auto name = currentTestName();
  mock.createTopic(name, 1);
  mock.createTopic(name + "-dlq", 1);
  mock.produce(name, 0, tenWithOneBad());
  auto props = mockWorkerProperties(name, name, mock.bootstrap());
  props["connector.class"] = "reporting-sink";
  withDeadLetterQueue(props, name + "-dlq");
  auto written = std::make_shared<Written>();
  {
    WorkerRunner runner(props, [written] { return std::make_unique<ReportingSink>(written); });
    EXPECT_EQ(mock.waitForCommitted("connect-" + name, {name, 0}, 10, 30s), 10);
  }
  EXPECT_EQ(written->count(), 9u);
  const auto dlq = readTopic(mock.bootstrap(), name + "-dlq", 1);
  ASSERT_EQ(dlq.size(), 1u);
  EXPECT_EQ(dlq[0].value, "bad7");
  EXPECT_EQ(dlq[0].headers.at("__connect.errors.offset"), "7");
  EXPECT_EQ(dlq[0].headers.at("__connect.errors.stage"), "VALUE_CONVERTER");
  EXPECT_EQ(dlq[0].headers.at("__connect.errors.class.name"), "reporting-sink");
}

TEST(WorkerErrors, S34_ToleranceNoneFailsTheTaskAndCommitsNothingPastThePoisonPill) {
  MockCluster mock;
  const auto name = currentTestName();
  mock.createTopic(name, 1);
  mock.createTopic(name + "-dlq", 1);
  mock.produceValues(name, 0, 5);  // a first batch that succeeds
  auto props = mockWorkerProperties(name, name, mock.bootstrap());
  props["errors.deadletterqueue.topic.name"] = name + "-dlq";      // a reporter exists, but
  props["errors.deadletterqueue.topic.replication.factor"] = "1";  // tolerance is none
  auto written = std::make_shared<Written>();
  WorkerRunner runner(props, [written] { return std::make_unique<ReportingSink>(written); });
  EXPECT_EQ(mock.waitForCommitted("connect-" + name, {name, 0}, 5, 30s), 5);
  mock.produce(name, 0, tenWithOneBad());  // offsets 5..14, the bad one at 12
  ASSERT_TRUE(runner.run().waitFinished(30s));
  EXPECT_NE(runner.run().errorMessage().find("Tolerance exceeded"), std::string::npos)
      << runner.run().errorMessage();
  EXPECT_NE(runner.run().errorMessage().find(name + "-0@12"), std::string::npos)
      << runner.run().errorMessage();
  const auto committed = mock.committed("connect-" + name, TopicPartition{name, 0});
  ASSERT_TRUE(committed.has_value());
  EXPECT_LE(*committed, 12);
  EXPECT_TRUE(readTopic(mock.bootstrap(), name + "-dlq", 1).empty());
}

TEST(WorkerErrors, S38_WithoutDlqOrToleranceTheReporterIsNull) {
  MockCluster mock;
  const auto name = currentTestName();
  mock.createTopic(name, 1);
  mock.produce(name, 0, tenWithOneBad());
  auto written = std::make_shared<Written>();
  WorkerRunner runner(mockWorkerProperties(name, name, mock.bootstrap()),
                      [written] { return std::make_unique<ReportingSink>(written); });
  ASSERT_TRUE(runner.run().waitFinished(30s));
  // ReportingSink throws the conversion error itself when there is no reporter.
  EXPECT_NE(runner.run().errorMessage().find("cannot parse bad7"), std::string::npos)
      << runner.run().errorMessage();
}

// The value of `metric` for task 0 in Prometheus text, or -1.
double metricValue(const std::string& text, const std::string& metric) {
  std::smatch m;
  const std::regex line(metric + R"(\{connector="[^"]*",task="0"\} ([0-9.e+-]+))");
  return std::regex_search(text, m, line) ? std::stod(m[1]) : -1;
}

TEST(WorkerMetrics, S40_MetricsEndpointServesConnectSinkTaskMetrics) {
  MockCluster mock;
  const auto name = currentTestName();
  mock.createTopic(name, 2);
  mock.produceValues(name, 0, 3);
  auto written = std::make_shared<Written>();
  auto props = mockWorkerProperties(name, name, mock.bootstrap());
  Worker worker(Config(props), [written] { return std::make_unique<ReportingSink>(written); });
  StatusServer server("http://127.0.0.1:0",
                      [&worker] { return std::vector<ConnectorStatus>{worker.status()}; });
  BackgroundRun run([&worker] { worker.run(); });
  ASSERT_EQ(mock.waitForCommitted("connect-" + name, {name, 0}, 3, 30s), 3);

  httplib::Client client("127.0.0.1", server.port());
  std::string text;
  // The commit is acknowledged; the next iteration publishes it.
  for (int i = 0; i < 50; ++i) {
    auto res = client.Get("/metrics");
    ASSERT_TRUE(res) << "no answer from /metrics";
    text = res->body;
    if (metricValue(text, "kafka_connect_sink_task_metrics_sink_record_active_count") == 0) break;
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_EQ(metricValue(text, "kafka_connect_sink_task_metrics_sink_record_read_total"), 3);
  EXPECT_EQ(metricValue(text, "kafka_connect_sink_task_metrics_sink_record_send_total"), 3);
  EXPECT_EQ(metricValue(text, "kafka_connect_sink_task_metrics_sink_record_active_count"), 0);
  EXPECT_EQ(metricValue(text, "kafka_connect_sink_task_metrics_partition_count"), 2);
  EXPECT_GE(metricValue(text, "kafka_connect_sink_task_metrics_offset_commit_seq_no"), 1);
  EXPECT_GE(metricValue(text, "kafka_connect_sink_task_metrics_offset_commit_completion_total"), 1);
  EXPECT_NE(text.find("ksink_partition_committed_offset{connector=\"" + name +
                      "\",task=\"0\",topic=\"" + name + "\",partition=\"0\"} 3"),
            std::string::npos)
      << text;

  auto status = client.Get("/status");
  ASSERT_TRUE(status);
  EXPECT_NE(status->body.find("\"state\":\"RUNNING\""), std::string::npos) << status->body;
  EXPECT_NE(status->body.find("\"name\":\"" + name + "\",\"type\":\"sink\""), std::string::npos)
      << status->body;
  EXPECT_NE(status->body.find("\"partition\":0,\"delivered\":3,\"confirmed\":3,\"committed\":3"),
            std::string::npos)
      << status->body;

  worker.stop();
  ASSERT_TRUE(run.waitFinished(30s));
  auto after = client.Get("/metrics");
  ASSERT_TRUE(after);
  EXPECT_EQ(metricValue(after->body, "kafka_connect_sink_task_metrics_partition_count"), 0);
  EXPECT_NE(client.Get("/status")->body.find("\"state\":\"STOPPED\""), std::string::npos);
}

}  // namespace
}  // namespace ksink::test
