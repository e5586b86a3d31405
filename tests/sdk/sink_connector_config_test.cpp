#include "sink_connector_config.h"

#include <gtest/gtest.h>

#include <set>

#include "error_handling.h"
#include "errors_config.h"
#include "ksink/transformation_chain.h"
#include "source_connector_config.h"

namespace ksink {
namespace {

std::map<std::string, std::string> base() {
  return {{"name", "orders"}, {"bootstrap.servers", "127.0.0.1:9092"}, {"topics", "a,b"}};
}

// The key ConfigException names for `values`, or "" when it is accepted.
std::set<std::string> rejectedKeys(std::map<std::string, std::string> values) {
  try {
    SinkConnectorConfig::parse(Config(std::move(values)));
    return {};
  } catch (const ConfigException& e) {
    std::set<std::string> keys;
    for (const auto& p : e.problems()) keys.insert(p.key);
    return keys;
  }
}

TEST(SinkConnectorConfig, DefaultsFollowKafkaConnect) {
  auto wc = SinkConnectorConfig::parse(Config(base()));
  EXPECT_EQ(wc.group_id, "connect-orders");
  EXPECT_EQ(wc.offset_flush_interval.count(), 60000);
  EXPECT_EQ(wc.offset_flush_timeout.count(), 5000);
  EXPECT_EQ(wc.shutdown_graceful_timeout.count(), 5000);
  EXPECT_EQ(wc.max_poll_records, 10000);
  EXPECT_EQ(wc.consumer_properties.at("enable.auto.commit"), "false");
  EXPECT_EQ(wc.consumer_properties.at("enable.auto.offset.store"), "false");
  EXPECT_EQ(wc.consumer_properties.at("auto.offset.reset"), "earliest");
  EXPECT_EQ(wc.consumer_properties.at("partition.assignment.strategy"), "range");
  EXPECT_EQ(wc.consumer_properties.at("isolation.level"), "read_committed");
  EXPECT_EQ(wc.topics, (std::vector<std::string>{"a", "b"}));
}

TEST(SinkConnectorConfig, PrefetchIsASmallByteBudgetAndCanBeOverridden) {
  // librdkafka's own 64 MiB / 100000 messages make a process of hundreds of MiB at full speed.
  auto wc = SinkConnectorConfig::parse(Config(base()));
  EXPECT_EQ(wc.consumer_properties.at("queued.max.messages.kbytes"), "2048");
  EXPECT_EQ(wc.consumer_properties.at("queued.min.messages"), "20000");
  EXPECT_EQ(wc.consumer_properties.at("fetch.max.bytes"), "2097152");
  auto values = base();
  values["consumer.override.queued.min.messages"] = "1000";
  values["consumer.queued.max.messages.kbytes"] = "65536";
  wc = SinkConnectorConfig::parse(Config(values));
  EXPECT_EQ(wc.consumer_properties.at("queued.min.messages"), "1000");
  EXPECT_EQ(wc.consumer_properties.at("queued.max.messages.kbytes"), "65536");
}

TEST(SinkConnectorConfig, ConsumerOverridesPassThroughAndWinOverWorkerWide) {
  auto values = base();
  values["consumer.session.timeout.ms"] = "10000";
  values["consumer.fetch.min.bytes"] = "10";
  values["consumer.override.fetch.min.bytes"] = "20";
  values["consumer.override.partition.assignment.strategy"] =
      "org.apache.kafka.clients.consumer.CooperativeStickyAssignor";
  values["consumer.override.max.poll.records"] = "50";
  values["security.protocol"] = "plaintext";
  auto wc = SinkConnectorConfig::parse(Config(values));
  EXPECT_EQ(wc.consumer_properties.at("session.timeout.ms"), "10000");
  EXPECT_EQ(wc.consumer_properties.at("fetch.min.bytes"), "20");
  EXPECT_EQ(wc.consumer_properties.at("partition.assignment.strategy"), "cooperative-sticky");
  EXPECT_EQ(wc.consumer_properties.at("security.protocol"), "plaintext");
  EXPECT_EQ(wc.max_poll_records, 50);
  EXPECT_FALSE(wc.consumer_properties.contains("max.poll.records"));
}

TEST(SinkConnectorConfig, RejectsBothTopicsAndRegex) {
  auto values = base();
  values["topics.regex"] = "a.*";
  EXPECT_EQ(rejectedKeys(values), (std::set<std::string>{"topics.regex"}));
}

TEST(SinkConnectorConfig, RejectsNeitherTopicsNorRegex) {
  auto values = base();
  values.erase("topics");
  EXPECT_EQ(rejectedKeys(values), (std::set<std::string>{"topics"}));
}

TEST(SinkConnectorConfig, RejectsNonNumericAndNegativeIntervals) {
  auto values = base();
  values["offset.flush.interval.ms"] = "often";
  values["offset.flush.timeout.ms"] = "-1";
  EXPECT_EQ(rejectedKeys(values),
            (std::set<std::string>{"offset.flush.interval.ms", "offset.flush.timeout.ms"}));
}

TEST(SinkConnectorConfig, RejectsUnknownAssignmentStrategy) {
  auto values = base();
  values["consumer.override.partition.assignment.strategy"] = "sticky-ish";
  EXPECT_EQ(rejectedKeys(values),
            (std::set<std::string>{"consumer.override.partition.assignment.strategy"}));
}

TEST(SinkConnectorConfig, RejectsMissingBootstrapServers) {
  auto values = base();
  values.erase("bootstrap.servers");
  EXPECT_EQ(rejectedKeys(values), (std::set<std::string>{"bootstrap.servers"}));
}

TEST(SinkConnectorConfig, RejectsAutoCommit) {
  auto values = base();
  values["consumer.override.enable.auto.commit"] = "true";
  EXPECT_EQ(rejectedKeys(values), (std::set<std::string>{"consumer.override.enable.auto.commit"}));
}

TEST(SinkConnectorConfig, LibrdkafkaRejectsUnknownConsumerProperties) {
  auto values = base();
  values["consumer.override.no.such.property"] = "1";
  EXPECT_EQ(rejectedKeys(values), (std::set<std::string>{"consumer.override.no.such.property"}));
}

TEST(SinkConnectorConfig, RejectsAnEmptyGroupOrInstanceId) {
  // An empty instance id would be "-0" in every process: each would fence the others.
  auto values = base();
  values["consumer.group.instance.id"] = "";
  EXPECT_EQ(rejectedKeys(values), (std::set<std::string>{"consumer.group.instance.id"}));
  values = base();
  values["consumer.override.group.instance.id"] = "  ";
  values["consumer.override.group.id"] = "";
  EXPECT_EQ(rejectedKeys(values), (std::set<std::string>{"consumer.override.group.instance.id",
                                                         "consumer.override.group.id"}));
  values = base();
  values["consumer.group.instance.id"] = "host-a";
  EXPECT_EQ(SinkConnectorConfig::parse(Config(values)).consumer_properties.at("group.instance.id"),
            "host-a");
}

TEST(SinkConnectorConfig, RejectsInvalidRegex) {
  auto values = base();
  values.erase("topics");
  values["topics.regex"] = "a(";
  EXPECT_EQ(rejectedKeys(values), (std::set<std::string>{"topics.regex"}));
}

TEST(SinkConnectorConfig, S39_RejectsADeadLetterQueueTheConnectorAlsoConsumes) {
  auto listed = base();
  listed["errors.deadletterqueue.topic.name"] = "b";
  EXPECT_EQ(rejectedKeys(listed), (std::set<std::string>{"errors.deadletterqueue.topic.name"}));
  auto matched = base();
  matched.erase("topics");
  matched["topics.regex"] = "orders.*";
  matched["errors.deadletterqueue.topic.name"] = "orders-dlq";
  EXPECT_EQ(rejectedKeys(matched), (std::set<std::string>{"errors.deadletterqueue.topic.name"}));
  auto fine = base();
  fine["errors.deadletterqueue.topic.name"] = "dlq";
  EXPECT_TRUE(rejectedKeys(fine).empty());
}

TEST(SinkConnectorConfig, RejectsAnUnknownToleranceAndLogLevel) {
  auto values = base();
  values["errors.tolerance"] = "some";
  values["log.level"] = "loud";
  EXPECT_EQ(rejectedKeys(values), (std::set<std::string>{"errors.tolerance", "log.level"}));
}

}  // namespace
}  // namespace ksink

namespace ksink {
namespace {

// The runtime applies transforms for every sink (a sink converting records itself declares the
// keys, replacing these): a chain is accepted and checked whole at start, whatever the sink.
TEST(SinkConnectorConfig, TransformsAndPredicatesAreAcceptedAndCheckedForEverySink) {
  auto values = base();
  values["transforms"] = "unwrap";
  values["transforms.unwrap.type"] = "io.debezium.transforms.ExtractNewRecordState";
  EXPECT_NO_THROW(SinkConnectorConfig::parse(Config(values)));
  values["transforms.unwrap.type"] = "com.example.Missing";
  EXPECT_EQ(rejectedKeys(values), (std::set<std::string>{"transforms.unwrap.type"}));
  auto predicates = base();
  predicates["predicates"] = "isTombstone";
  predicates["predicates.isTombstone.type"] =
      "org.apache.kafka.connect.transforms.predicates.RecordIsTombstone";
  EXPECT_FALSE(rejectedKeys(predicates).empty()) << "a predicate no transform uses";
  auto empty = base();
  empty["transforms"] = " ";
  EXPECT_TRUE(rejectedKeys(empty).empty());
  // The converters the runtime runs: checked too.
  auto converter = base();
  converter["value.converter"] = "com.example.Unknown";
  EXPECT_EQ(rejectedKeys(converter), (std::set<std::string>{"value.converter"}));
  // header.converter: any value here (a task the runtime converts for refuses one it does not
  // serve at start, the table sinks ignore it).
  auto header = base();
  header["header.converter"] = "org.apache.kafka.connect.converters.ByteArrayConverter";
  EXPECT_TRUE(rejectedKeys(header).empty());
}

}  // namespace
}  // namespace ksink

namespace ksink {
namespace {

// Issue 36, item 11: errors.* read once, as Connect reads them, wherever they are read: the
// sink's settings, a source connector's and the source task adapter (errors.log.enable=True was
// true in the first two and false in the third).
TEST(ErrorHandlingTest, OneReadingOfTheErrorKeysBooleansInAnyCase) {
  for (const char* yes : {"true", "True", "TRUE", " true "}) {
    const auto h = ErrorHandling::parse({{"errors.tolerance", "all"},
                                         {"errors.log.enable", yes},
                                         {"errors.log.include.messages", yes}});
    EXPECT_TRUE(h.tolerate_all && h.log_errors && h.log_include_messages) << yes;
  }
  const auto none = ErrorHandling::parse({{"errors.log.enable", "False"}});
  EXPECT_FALSE(none.tolerate_all || none.log_errors || none.log_include_messages);
  const std::map<std::string, std::string> values{{"name", "c"},
                                                  {"bootstrap.servers", "localhost:9092"},
                                                  {"topics", "t"},
                                                  {"errors.tolerance", "all"},
                                                  {"errors.log.enable", "True"},
                                                  {"errors.log.include.messages", "TRUE"}};
  const auto sink = ErrorsConfig::parse(Config(values));
  EXPECT_TRUE(sink.handling.tolerate_all && sink.handling.log_errors &&
              sink.handling.log_include_messages);
  auto source_values = values;
  source_values.erase("topics");
  const auto source = SourceConnectorConfig::parse(Config(source_values));
  EXPECT_TRUE(source.errors.tolerate_all && source.errors.log_errors &&
              source.errors.log_include_messages);
}

}  // namespace
}  // namespace ksink
