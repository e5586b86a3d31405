// The runtime converts and transforms before put() (Connect's WorkerSinkTask.convertAndTransform-
// Record), on the embedded broker: what put() received (converted() of each record), what the
// group committed, what the dead-letter queue holds, and a task that converts records itself.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "ksink/connect_record.h"
#include "ksink/conversion_unavailable.h"
#include "ksink/ksink.h"
#include "ksink/transformation_registry.h"
#include "support/mock_cluster.h"
#include "support/topic_reader.h"
#include "support/worker_runner.h"

namespace ksink::test {
namespace {

using namespace std::chrono_literals;

// One record as put() received it.
struct Seen {
  std::string original_topic;
  int64_t offset = 0;
  bool converted = false;
  bool original_is_the_record = false;
  std::string topic;  // the converted record's
  Value::Kind key_kind = Value::Kind::kNull;
  std::string key;  // a string key's text
  Value::Kind value_kind = Value::Kind::kNull;
  std::string value;  // bytes as they are, anything else as JSON
  std::vector<std::pair<std::string, std::string>> headers;  // string headers
};

struct Received {
  std::mutex mutex;
  std::vector<Seen> records;
  std::vector<Seen> all() {
    std::lock_guard lock(mutex);
    return records;
  }
};

class CapturingSink : public SinkTask {
 public:
  CapturingSink(std::shared_ptr<Received> received, bool converts_itself)
      : received_(std::move(received)), converts_itself_(converts_itself) {}
  bool convertsRecords() const override { return converts_itself_; }
  void start(const Config&) override {}
  void put(std::span<const SinkRecord> records) override {
    std::lock_guard lock(received_->mutex);
    for (const auto& r : records) {
      Seen seen;
      seen.original_topic = r.topic();
      seen.offset = r.offset();
      seen.converted = r.converted() != nullptr;
      if (const ConnectRecord* c = r.converted()) {
        seen.original_is_the_record = c->original == &r;
        seen.topic = c->topic;
        seen.key_kind = c->key.value.kind();
        if (seen.key_kind == Value::Kind::kString) seen.key = c->key.value.asString();
        seen.value_kind = c->value.value.kind();
        seen.value = seen.value_kind == Value::Kind::kBytes ? c->value.value.asBytes()
                                                            : c->value.value.toJson();
        for (const auto& h : c->headers)
          if (h.value.value.kind() == Value::Kind::kString)
            seen.headers.emplace_back(h.key, h.value.value.asString());
      }
      received_->records.push_back(std::move(seen));
    }
  }
  void stop() override {}

 private:
  std::shared_ptr<Received> received_;
  const bool converts_itself_;
};

TaskFactory capturing(std::shared_ptr<Received> received, bool converts_itself = false) {
  return [received, converts_itself] {
    return std::make_unique<CapturingSink>(received, converts_itself);
  };
}

// transforms=route: RegexRouter sending every record to `topic`.
void routeEverythingTo(Properties& props, const std::string& topic) {
  props["transforms"] = "route";
  props["transforms.route.type"] = "org.apache.kafka.connect.transforms.RegexRouter";
  props["transforms.route.regex"] = ".*";
  props["transforms.route.replacement"] = topic;
}

TEST(WorkerConversion, PutGetsTheConvertersStructsAfterTheTransformsWithTheOriginalCoordinates) {
  MockCluster mock;
  const auto name = currentTestName();
  mock.createTopic(name, 1);
  mock.produce(name, 0,
               {{"k0", R"({"id":1,"name":"a"})"},
                {"k1", R"({"id":2,"name":"b"})"},
                {"k2", R"({"id":3,"name":"c"})", {{"trace", "t-3"}}}});
  auto props = mockWorkerProperties(name, name, mock.bootstrap());
  props["key.converter"] = "org.apache.kafka.connect.storage.StringConverter";
  props["value.converter"] = "org.apache.kafka.connect.json.JsonConverter";
  props["value.converter.schemas.enable"] = "false";
  routeEverythingTo(props, "routed");
  props["transforms"] = "route,source";
  props["transforms.source.type"] = "org.apache.kafka.connect.transforms.InsertField$Value";
  props["transforms.source.static.field"] = "source";
  props["transforms.source.static.value"] = "ksink";
  auto received = std::make_shared<Received>();
  {
    WorkerRunner runner(props, capturing(received));
    EXPECT_EQ(mock.waitForCommitted("connect-" + name, {name, 0}, 3, 30s), 3);
  }
  const auto seen = received->all();
  ASSERT_EQ(seen.size(), 3u);
  for (size_t i = 0; i < seen.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_TRUE(seen[i].converted);
    EXPECT_TRUE(seen[i].original_is_the_record);
    EXPECT_EQ(seen[i].original_topic, name);  // what the worker commits
    EXPECT_EQ(seen[i].offset, static_cast<int64_t>(i));
    EXPECT_EQ(seen[i].topic, "routed");  // the router's
    EXPECT_EQ(seen[i].key_kind, Value::Kind::kString);
    EXPECT_EQ(seen[i].key, "k" + std::to_string(i));
    EXPECT_EQ(seen[i].value_kind, Value::Kind::kObject);
  }
  EXPECT_EQ(seen[0].value, R"({"id":1,"name":"a","source":"ksink"})");
  EXPECT_EQ(seen[2].value, R"({"id":3,"name":"c","source":"ksink"})");
  EXPECT_EQ(seen[2].headers, (std::vector<std::pair<std::string, std::string>>{{"trace", "t-3"}}));
}

TEST(WorkerConversion, WithoutConvertersNamedTheRecordsArriveAsBytesAndATombstoneAsNull) {
  MockCluster mock;
  const auto name = currentTestName();
  mock.createTopic(name, 1);
  mock.produce(name, 0, {{"k0", "not json"}, {"k1", std::nullopt}});
  auto received = std::make_shared<Received>();
  {
    WorkerRunner runner(mockWorkerProperties(name, name, mock.bootstrap()), capturing(received));
    EXPECT_EQ(mock.waitForCommitted("connect-" + name, {name, 0}, 2, 30s), 2);
  }
  const auto seen = received->all();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_TRUE(seen[0].converted);
  EXPECT_EQ(seen[0].topic, name);
  EXPECT_EQ(seen[0].key_kind, Value::Kind::kBytes);
  EXPECT_EQ(seen[0].value_kind, Value::Kind::kBytes);
  EXPECT_EQ(seen[0].value, "not json");
  EXPECT_TRUE(seen[1].converted);
  EXPECT_EQ(seen[1].value_kind, Value::Kind::kNull);
}

TEST(WorkerConversion, ARecordThatCannotBeConvertedFailsTheTaskBeforePutUnderToleranceNone) {
  MockCluster mock;
  const auto name = currentTestName();
  mock.createTopic(name, 1);
  mock.produce(name, 0, {{"k0", R"({"id":1})"}, {"k1", R"({"id":2})"}});
  auto props = mockWorkerProperties(name, name, mock.bootstrap());
  props["value.converter"] = "json";
  props["value.converter.schemas.enable"] = "false";
  auto received = std::make_shared<Received>();
  WorkerRunner runner(props, capturing(received));
  EXPECT_EQ(mock.waitForCommitted("connect-" + name, {name, 0}, 2, 30s), 2);
  mock.produce(name, 0, {{"k2", R"({"id":3})"}, {"k3", "{not json"}, {"k4", R"({"id":5})"}});
  ASSERT_TRUE(runner.run().waitFinished(30s));
  const auto error = runner.run().errorMessage();
  EXPECT_NE(error.find("Tolerance exceeded"), std::string::npos) << error;
  EXPECT_NE(error.find(name + "-0@3 failed at stage VALUE_CONVERTER"), std::string::npos) << error;
  for (const auto& s : received->all()) EXPECT_LT(s.offset, 3) << "put() got a later record";
  const auto committed = mock.committed("connect-" + name, TopicPartition{name, 0});
  ASSERT_TRUE(committed.has_value());
  EXPECT_LE(*committed, 3);
}

TEST(WorkerConversion, UnderToleranceAllRecordsFailingConversionOrATransformGoToTheDlqNotToPut) {
  MockCluster mock;
  const auto name = currentTestName();
  mock.createTopic(name, 1);
  mock.createTopic(name + "-dlq", 1);
  mock.produce(name, 0,
               {{"k0", R"({"payload":"a"})"},
                {"k1", "{not json"},           // the converter fails
                {"k2", R"("just a string")"},  // ExtractField finds no struct or map
                {"k3", R"({"payload":"d"})"}});
  auto props = mockWorkerProperties(name, name, mock.bootstrap());
  props["value.converter"] = "json";
  props["value.converter.schemas.enable"] = "false";
  props["transforms"] = "extract";
  props["transforms.extract.type"] = "org.apache.kafka.connect.transforms.ExtractField$Value";
  props["transforms.extract.field"] = "payload";
  props["errors.tolerance"] = "all";
  props["errors.deadletterqueue.topic.name"] = name + "-dlq";
  props["errors.deadletterqueue.topic.replication.factor"] = "1";
  props["errors.deadletterqueue.context.headers.enable"] = "true";
  auto received = std::make_shared<Received>();
  {
    WorkerRunner runner(props, capturing(received));
    EXPECT_EQ(mock.waitForCommitted("connect-" + name, {name, 0}, 4, 30s), 4);
  }
  const auto seen = received->all();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].offset, 0);
  EXPECT_EQ(seen[0].value, R"("a")");
  EXPECT_EQ(seen[1].offset, 3);
  const auto dlq = readPartition(mock.bootstrap(), name + "-dlq", 0, 2, 5s);
  ASSERT_EQ(dlq.size(), 2u);
  EXPECT_EQ(dlq[0].value, "{not json");
  EXPECT_EQ(dlq[0].headers.at("__connect.errors.offset"), "1");
  EXPECT_EQ(dlq[0].headers.at("__connect.errors.stage"), "VALUE_CONVERTER");
  EXPECT_EQ(dlq[1].headers.at("__connect.errors.offset"), "2");
  EXPECT_EQ(dlq[1].headers.at("__connect.errors.stage"), "TRANSFORMATION");
}

TEST(WorkerConversion, ARecordAFilterDropsIsNotPutAndItsOffsetIsCommitted) {
  MockCluster mock;
  const auto name = currentTestName();
  mock.createTopic(name, 1);
  mock.produce(name, 0, {{"k0", "a"}, {"k1", "b", {{"skip", "yes"}}}, {"k2", "c"}});
  auto props = mockWorkerProperties(name, name, mock.bootstrap());
  props["transforms"] = "drop";
  props["transforms.drop.type"] = "org.apache.kafka.connect.transforms.Filter";
  props["transforms.drop.predicate"] = "skip";
  props["predicates"] = "skip";
  props["predicates.skip.type"] = "org.apache.kafka.connect.transforms.predicates.HasHeaderKey";
  props["predicates.skip.name"] = "skip";
  auto received = std::make_shared<Received>();
  {
    WorkerRunner runner(props, capturing(received));
    EXPECT_EQ(mock.waitForCommitted("connect-" + name, {name, 0}, 3, 30s), 3);
  }
  const auto seen = received->all();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].value, "a");
  EXPECT_EQ(seen[1].value, "c");
  EXPECT_EQ(seen[1].offset, 2);
}

TEST(WorkerConversion, ATaskThatConvertsItselfGetsTheRecordsAsConsumedAndNoChainItDoesNotDeclare) {
  MockCluster mock;
  const auto name = currentTestName();
  mock.createTopic(name, 1);
  mock.produce(name, 0, {{"k0", "{not json"}});
  auto props = mockWorkerProperties(name, name, mock.bootstrap());
  props["value.converter"] = "json";  // its own business: the runtime does not apply it
  auto received = std::make_shared<Received>();
  {
    WorkerRunner runner(props, capturing(received, /*converts_itself=*/true));
    EXPECT_EQ(mock.waitForCommitted("connect-" + name, {name, 0}, 1, 30s), 1);
  }
  const auto seen = received->all();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_FALSE(seen[0].converted);

  routeEverythingTo(props, "routed");
  WorkerRunner refused(props, capturing(received, /*converts_itself=*/true));
  ASSERT_TRUE(refused.run().waitFinished(30s));
  EXPECT_NE(refused.run().errorMessage().find(
                "transforms: 'route': this sink converts records itself and does not apply"),
            std::string::npos)
      << refused.run().errorMessage();
}

// A transform with faults: a value "flaky…" throws RetriableError the first `flaky_failures` times
// it is seen; any value throws ConversionUnavailable while `away` (its service is down).
struct Faults {
  std::atomic<int> flaky_failures{0};
  std::atomic<bool> away{false};
  std::atomic<int> unavailable_calls{0};
};
Faults& faults() {
  static Faults f;
  return f;
}

class FaultyTransform : public Transformation {
 public:
  const ConfigDef& configDef() const override {
    static const ConfigDef def;
    return def;
  }
  void configure(const Config&) override {}
  std::optional<ConnectRecord> apply(ConnectRecord record) override {
    if (faults().away) {
      faults().unavailable_calls++;
      throw ConversionUnavailable("the service is away");
    }
    if (record.value.value.asBytes().starts_with("flaky") && faults().flaky_failures > 0) {
      faults().flaky_failures--;
      throw RetriableError("not now");
    }
    return record;
  }
};

Properties withFaultyTransform(Properties props) {
  static const bool registered = [] {
    TransformationRegistry::global().addTransformation(
        {"com.example.Faulty"}, [] { return std::make_unique<FaultyTransform>(); });
    return true;
  }();
  (void)registered;
  props["transforms"] = "faulty";
  props["transforms.faulty.type"] = "com.example.Faulty";
  return props;
}

TEST(WorkerConversion, ARetriableFailureIsRetriedWithinErrorsRetryTimeoutAndTheRecordPutOnce) {
  MockCluster mock;
  const auto name = currentTestName();
  mock.createTopic(name, 1);
  mock.produce(name, 0, {{"k0", "a"}, {"k1", "flaky-b"}, {"k2", "c"}});
  auto props = withFaultyTransform(mockWorkerProperties(name, name, mock.bootstrap()));
  props["errors.retry.timeout"] = "30000";
  props["errors.retry.delay.max.ms"] = "10";
  faults().flaky_failures = 2;
  auto received = std::make_shared<Received>();
  {
    WorkerRunner runner(props, capturing(received));
    EXPECT_EQ(mock.waitForCommitted("connect-" + name, {name, 0}, 3, 30s), 3);
  }
  EXPECT_EQ(faults().flaky_failures, 0);
  const auto seen = received->all();
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[1].value, "flaky-b");
  EXPECT_EQ(seen[2].offset, 2);
}

TEST(WorkerConversion, AServiceAwayHoldsTheBatchBackAndThenEveryRecordIsPutOnce) {
  MockCluster mock;
  const auto name = currentTestName();
  mock.createTopic(name, 1);
  mock.produceValues(name, 0, 5);
  auto props = withFaultyTransform(mockWorkerProperties(name, name, mock.bootstrap()));
  props["errors.retry.delay.max.ms"] = "50";
  faults().away = true;
  faults().unavailable_calls = 0;
  auto received = std::make_shared<Received>();
  WorkerRunner runner(props, capturing(received));
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (faults().unavailable_calls < 3 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(20ms);
  ASSERT_GE(faults().unavailable_calls, 3) << "the conversion was not tried again";
  EXPECT_TRUE(received->all().empty()) << "put() got records while the service was away";
  EXPECT_FALSE(runner.run().finished()) << runner.run().errorMessage();
  faults().away = false;
  EXPECT_EQ(mock.waitForCommitted("connect-" + name, {name, 0}, 5, 30s), 5);
  runner.stop();
  ASSERT_TRUE(runner.run().waitFinished(30s));
  const auto seen = received->all();
  ASSERT_EQ(seen.size(), 5u);
  for (size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i].offset, static_cast<int64_t>(i));
}

}  // namespace
}  // namespace ksink::test
