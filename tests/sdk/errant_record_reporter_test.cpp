// The errant record reporter and the dead-letter queue, on the embedded mock cluster: what lands
// in the DLQ topic, read back from the broker.
#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <map>

#include "dead_letter_queue.h"
#include "ksink/conversion_error.h"
#include "rdkafka_timeout.h"
#include "support/topic_reader.h"
#include "worker_errant_record_reporter.h"

namespace ksink {
namespace {

class ErrantRecordReporterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char err[512];
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "test.mock.num.brokers", "1", err, sizeof err);
    rd_kafka_conf_set(conf, "log_level", "2", err, sizeof err);
    host_ = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    cluster_ = rd_kafka_handle_mock_cluster(host_);
    rd_kafka_mock_topic_create(cluster_, "dlq", 1, 1);
    bootstrap_ = rd_kafka_mock_cluster_bootstraps(cluster_);
  }
  void TearDown() override { rd_kafka_destroy(host_); }

  ErrorsConfig config(bool tolerate_all) {
    ErrorsConfig c;
    c.handling = {tolerate_all, true, true};
    c.dlq_topic = "dlq";
    c.dlq_replication_factor = 1;
    c.dlq_context_headers = true;
    c.producer_properties = {{"bootstrap.servers", bootstrap_}, {"log_level", "2"}};
    return c;
  }

  std::vector<test::ConsumedRecord> readDlq(size_t expected, int polls = 100) {
    return test::readPartition(bootstrap_, "dlq", 0, expected,
                               std::chrono::milliseconds(polls * 100));
  }

  rd_kafka_t* host_ = nullptr;
  rd_kafka_mock_cluster_t* cluster_ = nullptr;
  std::string bootstrap_;
};

TEST_F(ErrantRecordReporterTest, ToleranceAllWritesTheOriginalRecordWithTheTenContextHeaders) {
  WorkerErrantRecordReporter reporter(config(true), "orders-sink", "postgres", 2,
                                      std::chrono::seconds(10));
  SinkRecord record("orders", 3, 41, 1700000000123, std::string_view("k7"),
                    std::string_view("{not json"), {{"trace", std::string_view("abc")}});
  reporter.report(record, ConversionError("unexpected character at 1"));
  ASSERT_EQ(reporter.awaitDelivered(), ErrantRecordReporter::Delivery::kDelivered);

  auto records = readDlq(1);
  ASSERT_EQ(records.size(), 1u);
  const auto& r = records[0];
  EXPECT_EQ(r.key, "k7");
  EXPECT_EQ(r.value, "{not json");
  EXPECT_EQ(r.timestamp, 1700000000123);
  EXPECT_EQ(r.headers.at("trace"), "abc");
  EXPECT_EQ(r.headers.at("__connect.errors.topic"), "orders");
  EXPECT_EQ(r.headers.at("__connect.errors.partition"), "3");
  EXPECT_EQ(r.headers.at("__connect.errors.offset"), "41");
  EXPECT_EQ(r.headers.at("__connect.errors.connector.name"), "orders-sink");
  EXPECT_EQ(r.headers.at("__connect.errors.task.id"), "2");
  EXPECT_EQ(r.headers.at("__connect.errors.stage"), "VALUE_CONVERTER");
  EXPECT_EQ(r.headers.at("__connect.errors.class.name"), "postgres");
  EXPECT_EQ(r.headers.at("__connect.errors.exception.class.name"), "ksink::ConversionError");
  EXPECT_EQ(r.headers.at("__connect.errors.exception.message"), "unexpected character at 1");
  EXPECT_EQ(r.headers.count("__connect.errors.exception.stacktrace"), 1u);
  EXPECT_EQ(r.headers.size(), 11u);
  EXPECT_EQ(reporter.metrics().total_records_skipped, 1u);
  EXPECT_EQ(reporter.dlqProduceRequests(), 1u);
}

// A producer queue that stays full (the broker takes nothing) fails the write within a bound of
// its own instead of holding the task forever; the record is not skipped, the caller fails.
TEST_F(ErrantRecordReporterTest, AWriteThatFindsTheQueueFullForTooLongFails) {
  auto c = config(true);
  c.producer_properties["queue.buffering.max.messages"] = "1";
  DeadLetterQueue dlq(c, "orders-sink", 0, std::chrono::milliseconds(300));
  rd_kafka_mock_broker_set_down(cluster_, 1);
  const SinkRecord record("orders", 0, 1, 0, std::nullopt, std::string_view("x"));
  dlq.send(record, {"TASK_PUT", "sink", "E", "m"});
  const auto started = std::chrono::steady_clock::now();
  try {
    dlq.send(record, {"TASK_PUT", "sink", "E", "m"});
    ADD_FAILURE() << "a second record fitted into a full queue";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("for 300 ms"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
  rd_kafka_mock_broker_set_up(cluster_, 1);
}

// How long a wait for the DLQ lasts is decided once, where the reporter is made (the worker's
// offset.flush.timeout.ms), for the worker's commits and a sink's own transactions alike.
TEST_F(ErrantRecordReporterTest, AwaitingDeliveryWaitsTheBoundTheReporterWasMadeWith) {
  WorkerErrantRecordReporter reporter(config(true), "c", "sqlite", 0,
                                      std::chrono::milliseconds(300));
  rd_kafka_mock_broker_set_down(cluster_, 1);
  reporter.report(SinkRecord("orders", 0, 1, 0, std::nullopt, std::string_view("x")),
                  ConversionError("bad"));
  const auto started = std::chrono::steady_clock::now();
  EXPECT_EQ(reporter.awaitDelivered(), ErrantRecordReporter::Delivery::kPending);
  const auto waited = std::chrono::steady_clock::now() - started;
  EXPECT_GE(waited, std::chrono::milliseconds(250));
  EXPECT_LT(waited, std::chrono::seconds(3));
  rd_kafka_mock_broker_set_up(cluster_, 1);
}

// librdkafka reads a negative timeout as "forever": a long one is clamped, never wrapped.
TEST(RdkafkaTimeout, LongTimeoutsAreClampedNotWrapped) {
  using std::chrono::milliseconds;
  EXPECT_EQ(rdkafkaTimeoutMs(milliseconds(5000)), 5000);
  EXPECT_EQ(rdkafkaTimeoutMs(milliseconds(int64_t{1} << 31)), INT32_MAX);
  EXPECT_EQ(rdkafkaTimeoutMs(milliseconds(int64_t{3} << 32)), INT32_MAX);
  EXPECT_EQ(rdkafkaTimeoutMs(milliseconds(-5)), 0);
}

TEST_F(ErrantRecordReporterTest, TaskPutErrorsCarryTheTaskPutStage) {
  WorkerErrantRecordReporter reporter(config(true), "c", "sqlite", 0, std::chrono::seconds(10));
  SinkRecord record("orders", 0, 5, std::nullopt, std::nullopt, std::string_view("v"));
  reporter.report(record, std::runtime_error("NOT NULL constraint failed"));
  ASSERT_EQ(reporter.awaitDelivered(), ErrantRecordReporter::Delivery::kDelivered);
  auto records = readDlq(1);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].key, std::nullopt);
  EXPECT_EQ(records[0].headers.at("__connect.errors.stage"), "TASK_PUT");
  EXPECT_EQ(records[0].headers.at("__connect.errors.exception.class.name"), "std::runtime_error");
}

TEST_F(ErrantRecordReporterTest, ToleranceNoneThrowsAndWritesNothing) {
  WorkerErrantRecordReporter reporter(config(false), "c", "sqlite", 0, std::chrono::seconds(10));
  SinkRecord record("orders", 1, 9, std::nullopt, std::nullopt, std::string_view("v"));
  try {
    reporter.report(record, ConversionError("bad"));
    FAIL() << "expected ToleranceExceededError";
  } catch (const ToleranceExceededError& e) {
    EXPECT_NE(std::string(e.what()).find("orders-1@9"), std::string::npos) << e.what();
  }
  EXPECT_EQ(reporter.awaitDelivered(), ErrantRecordReporter::Delivery::kDelivered);
  EXPECT_EQ(reporter.dlqProduceRequests(), 0u);
  EXPECT_EQ(reporter.metrics().total_records_skipped, 0u);
  EXPECT_TRUE(readDlq(1, 20).empty());
}

TEST_F(ErrantRecordReporterTest, WithoutContextHeadersOnlyTheOriginalHeadersAreWritten) {
  auto c = config(true);
  c.dlq_context_headers = false;
  WorkerErrantRecordReporter reporter(c, "c", "sqlite", 0, std::chrono::seconds(10));
  SinkRecord record("orders", 0, 1, std::nullopt, std::string_view("k"), std::string_view("v"),
                    {{"h", std::string_view("1")}});
  reporter.report(record, std::runtime_error("x"));
  ASSERT_EQ(reporter.awaitDelivered(), ErrantRecordReporter::Delivery::kDelivered);
  auto records = readDlq(1);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].headers, (std::map<std::string, std::string>{{"h", "1"}}));
}

}  // namespace
}  // namespace ksink
