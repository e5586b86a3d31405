// The runtime converts and transforms before put() (Connect's WorkerSinkTask.convertAndTransform-
// Record), on the embedded broker: what put() received (converted() of each record), what the
// group committed, what the dead-letter queue holds, and a task that converts records itself.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "connector_file.h"
#include "fetched_records.h"
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
               {{R"("k0")", R"({"payload":"a"})"},
                {R"("k1")", "{not json"},            // the value converter fails
                {R"("k2")", R"("just a string")"},   // ExtractField finds no struct or map
                {"{bad key", R"({"payload":"d"})"},  // the key converter fails
                {R"("k4")", R"({"payload":"e"})"}});
  auto props = mockWorkerProperties(name, name, mock.bootstrap());
  props["key.converter"] = "json";
  props["key.converter.schemas.enable"] = "false";
  props["value.converter"] = "json";
  props["value.converter.schemas.enable"] = "false";
  props["transforms"] = "extract";
  props["transforms.extract.type"] = "org.apache.kafka.connect.transforms.ExtractField$Value";
  props["transforms.extract.field"] = "payload";
  withDeadLetterQueue(props, name + "-dlq");
  auto received = std::make_shared<Received>();
  {
    WorkerRunner runner(props, capturing(received));
    EXPECT_EQ(mock.waitForCommitted("connect-" + name, {name, 0}, 5, 30s), 5);
  }
  const auto seen = received->all();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].offset, 0);
  EXPECT_EQ(seen[0].value, R"("a")");
  EXPECT_EQ(seen[1].offset, 4);
  const auto dlq = readPartition(mock.bootstrap(), name + "-dlq", 0, 3, 5s);
  ASSERT_EQ(dlq.size(), 3u);
  EXPECT_EQ(dlq[0].value, "{not json");
  EXPECT_EQ(dlq[0].headers.at("__connect.errors.offset"), "1");
  EXPECT_EQ(dlq[0].headers.at("__connect.errors.stage"), "VALUE_CONVERTER");
  EXPECT_EQ(dlq[1].headers.at("__connect.errors.offset"), "2");
  EXPECT_EQ(dlq[1].headers.at("__connect.errors.stage"), "TRANSFORMATION");
  EXPECT_EQ(dlq[2].headers.at("__connect.errors.offset"), "3");
  EXPECT_EQ(dlq[2].headers.at("__connect.errors.stage"), "KEY_CONVERTER");
}

// put() throws RetriableError once: the same converted records come again (not converted again,
// so a bad record of the batch is in the dead-letter queue once).
class FailsFirstPut : public CapturingSink {
 public:
  using CapturingSink::CapturingSink;
  std::vector<const ConnectRecord*> first, second;
  void put(std::span<const SinkRecord> records) override {
    if (records.empty()) return;
    auto& into = first.empty() ? first : second;
    if (into.empty())
      for (const auto& r : records) into.push_back(r.converted());
    if (&into == &first) throw RetriableError("not yet");
    CapturingSink::put(records);
  }
};

TEST(WorkerConversion, APutRedeliveredGetsTheSameConvertedRecordsAndNoRecordReachesTheDlqTwice) {
  MockCluster mock;
  const auto name = currentTestName();
  mock.createTopic(name, 1);
  mock.createTopic(name + "-dlq", 1);
  // The bad record first: it is in the first batch whatever the fetch returns with it.
  mock.produce(name, 0, {{"k0", "{bad"}, {"k1", R"({"id":2})"}, {"k2", R"({"id":3})"}});
  auto props = mockWorkerProperties(name, name, mock.bootstrap());
  props["value.converter"] = "json";
  props["value.converter.schemas.enable"] = "false";
  withDeadLetterQueue(props, name + "-dlq", false);
  props["errors.retry.delay.max.ms"] = "50";
  auto received = std::make_shared<Received>();
  FailsFirstPut* sink = nullptr;
  {
    WorkerRunner runner(props, [&] {
      auto task = std::make_unique<FailsFirstPut>(received, false);
      sink = task.get();
      return task;
    });
    EXPECT_EQ(mock.waitForCommitted("connect-" + name, {name, 0}, 3, 30s), 3);
    ASSERT_NE(sink, nullptr);
    EXPECT_GE(sink->first.size(), 1u);  // all of the batch that came through (a fetch may split)
    EXPECT_EQ(sink->second, sink->first) << "the redelivered batch was converted again";
  }
  EXPECT_EQ(received->all().size(), 2u);
  EXPECT_EQ(readPartition(mock.bootstrap(), name + "-dlq", 0, 2, 2s).size(), 1u);
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

// Leaves the faults off whatever the test's outcome (they are shared by the tests of the binary).
struct FaultsOff {
  ~FaultsOff() {
    faults().away = false;
    faults().flaky_failures = 0;
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
  FaultsOff off;
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
  FaultsOff off;
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

TEST(WorkerConversion, AStopWhileAConversionWaitsForItsRetryEndsTheTaskStoppedAndDeliversNothing) {
  MockCluster mock;
  const auto name = currentTestName();
  mock.createTopic(name, 1);
  mock.produce(name, 0, {{"k0", "flaky-a"}});
  auto props = withFaultyTransform(mockWorkerProperties(name, name, mock.bootstrap()));
  props["errors.retry.timeout"] = "-1";  // retried for ever
  props["errors.retry.delay.max.ms"] = "60000";
  FaultsOff off;
  faults().flaky_failures = 1000000;
  auto received = std::make_shared<Received>();
  WorkerRunner runner(props, capturing(received));
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (faults().flaky_failures == 1000000 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(20ms);
  ASSERT_LT(faults().flaky_failures, 1000000) << "the record was never converted";
  const auto took = runner.stopAndMeasure(30s);
  ASSERT_TRUE(took.has_value());
  EXPECT_LT(*took, 10s) << "the stop waited for the retry's backoff";
  EXPECT_EQ(runner.run().errorMessage(), "");
  EXPECT_TRUE(received->all().empty());
  const auto committed = mock.committed("connect-" + name, TopicPartition{name, 0});
  EXPECT_TRUE(!committed || *committed == 0) << *committed;
}

// Partitions dropped from a batch that is partly converted (a rewind, a revocation while a
// converter's service is away): the converted records of the others stay, index for index, and
// conversion goes on at the first record not converted yet.
TEST(WorkerBatchTest, DroppingAPartitionKeepsTheOthersConvertedRecordsAndWhereConversionStopped) {
  WorkerBatch batch;
  const std::string a = "a", b = "b";
  for (int64_t i = 0; i < 3; ++i) {
    batch.records.emplace_back(a, 0, i, std::nullopt, std::nullopt, std::nullopt);
    batch.records.emplace_back(b, 0, i, std::nullopt, std::nullopt, std::nullopt);
  }
  // The first four converted (a0 b0 a1 b1); b0 was skipped as bad.
  batch.converted_count = 4;
  for (size_t i : {0u, 2u, 3u}) {
    batch.put_records.push_back(batch.records[i]);
    ConnectRecord c;
    c.topic = std::string(batch.records[i].topic()) + "-converted";
    c.timestamp = batch.records[i].offset();
    batch.connect_records.push_back(std::move(c));
  }
  batch.dropPartitions({{"a", 0}});
  ASSERT_EQ(batch.records.size(), 3u);
  EXPECT_EQ(batch.converted_count, 2u) << "b0 and b1 were converted, b2 not yet";
  ASSERT_EQ(batch.put_records.size(), 1u);
  ASSERT_EQ(batch.connect_records.size(), 1u);
  EXPECT_EQ(batch.put_records[0].topic(), "b");
  EXPECT_EQ(batch.put_records[0].offset(), 1);
  EXPECT_EQ(batch.connect_records[0].topic, "b-converted");
  EXPECT_EQ(batch.connect_records[0].timestamp, 1);
}

// What `ksink run` and `ksink validate` read: a sink whose tasks convert records themselves and
// that does not declare the chain is refused transforms= before any task starts.
TEST(WorkerConversion, TheConnectorFileRefusesAChainASelfConvertingSinkDoesNotDeclare) {
  static const bool registered = [] {
    ConnectorRegistry::global().add(
        {"self-converting-test-sink",
         [] { return std::make_unique<CapturingSink>(std::make_shared<Received>(), true); },
         ConfigDef(), "converts itself, applies no chain"});
    return true;
  }();
  (void)registered;
  const auto dir = std::filesystem::temp_directory_path() / ("ksink-" + currentTestName());
  std::filesystem::create_directories(dir);
  const auto file = (dir / "c.properties").string();
  std::ofstream(file) << "name=x\nconnector.class=self-converting-test-sink\ntopics=a\n"
                         "bootstrap.servers=127.0.0.1:1\ntransforms=route\n"
                         "transforms.route.type=org.apache.kafka.connect.transforms.RegexRouter\n"
                         "transforms.route.regex=.*\ntransforms.route.replacement=b\n";
  try {
    loadConnector({}, file);
    ADD_FAILURE() << "the chain was accepted";
  } catch (const ConfigException& e) {
    EXPECT_NE(std::string(e.what()).find("transforms: 'route': this sink converts records itself"),
              std::string::npos)
        << e.what();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ksink::test
