// The exactly-once keys of a source connector (KIP-618's, with Kafka Connect's names and
// defaults): what they set up — the transactional ids, the producer's timeouts, the offsets topic,
// the boundaries, the group that shares the tasks — and every combination that cannot work refused
// at start, naming the key.
#include <gtest/gtest.h>

#include <string>

#include "exactly_once_source_task.h"
#include "ksink/config_exception.h"
#include "source_connector_config.h"

namespace ksink {
namespace {

using Properties = std::map<std::string, std::string>;

Properties base(Properties extra = {}) {
  Properties p{{"name", "orders"},
               {"bootstrap.servers", "localhost:9092"},
               {"offset.flush.interval.ms", "7000"}};
  for (auto& [k, v] : extra) p.insert_or_assign(k, v);
  return p;
}

// The problems parse() reports, by key.
std::map<std::string, std::string> refused(Properties properties) {
  try {
    SourceConnectorConfig::parse(Config(std::move(properties)));
  } catch (const ConfigException& e) {
    std::map<std::string, std::string> out;
    for (const auto& p : e.problems()) out[p.key] = p.reason;
    return out;
  }
  return {};
}

TEST(ExactlyOnceConfigTest, DisabledByDefaultWithConnectsDefaults) {
  const auto settings = SourceConnectorConfig::parse(Config(base()));
  EXPECT_FALSE(settings.exactly_once);
  EXPECT_FALSE(settings.exactly_once_required);
  EXPECT_EQ(settings.transaction_boundary, SourceConnectorConfig::TransactionBoundary::kPoll);
  EXPECT_EQ(settings.transaction_boundary_interval, std::chrono::milliseconds(7000))
      << "offset.flush.interval.ms, as Connect";
  EXPECT_EQ(settings.producer_properties.count("transactional.id"), 0u);
  EXPECT_EQ(settings.producer_properties.at("message.timeout.ms"), "0");
}

TEST(ExactlyOnceConfigTest, EnabledMakesTransactionalProducersNamedAsConnectNamesThem) {
  auto settings =
      SourceConnectorConfig::parse(Config(base({{"exactly.once.source.support", "enabled"}})));
  EXPECT_TRUE(settings.exactly_once);
  EXPECT_EQ(ExactlyOnceSourceTask::transactionalId(settings, 3), "connect-cluster-orders-3")
      << "Connect distributed's sample group.id";
  EXPECT_EQ(settings.producer_properties.at("transaction.timeout.ms"), "60000");
  EXPECT_EQ(settings.producer_properties.at("message.timeout.ms"), "60000")
      << "a record must be delivered within its transaction's timeout";
  EXPECT_EQ(settings.transaction_timeout, std::chrono::milliseconds(60000));

  settings =
      SourceConnectorConfig::parse(Config(base({{"exactly.once.source.support", "enabled"},
                                                {"group.id", "dc-east"},
                                                {"offsets.storage.topic", "orders-offsets"},
                                                {"transaction.boundary", "interval"},
                                                {"transaction.boundary.interval.ms", "250"},
                                                {"producer.transaction.timeout.ms", "10000"}})));
  EXPECT_EQ(ExactlyOnceSourceTask::transactionalId(settings, 0), "dc-east-orders-0");
  EXPECT_EQ(settings.offsets_topic, "orders-offsets") << "the connector's own topic (KIP-618)";
  EXPECT_EQ(settings.transaction_boundary, SourceConnectorConfig::TransactionBoundary::kInterval);
  EXPECT_EQ(settings.transaction_boundary_interval, std::chrono::milliseconds(250));
  EXPECT_EQ(settings.transaction_timeout, std::chrono::milliseconds(10000));
  EXPECT_EQ(settings.producer_properties.at("message.timeout.ms"), "10000");
}

TEST(ExactlyOnceConfigTest, PreparingIsRefusedWithWhyKsinkNeedsNoSuchStep) {
  const auto problems = refused(base({{"exactly.once.source.support", "preparing"}}));
  ASSERT_TRUE(problems.contains("exactly.once.source.support"));
  EXPECT_NE(problems.at("exactly.once.source.support").find("fences"), std::string::npos);
}

TEST(ExactlyOnceConfigTest, KeysThatOnlyMeanSomethingWithExactlyOnceAreRefusedWithoutIt) {
  auto problems =
      refused(base({{"exactly.once.support", "required"}, {"transaction.boundary", "connector"}}));
  EXPECT_TRUE(problems.contains("exactly.once.support"));
  EXPECT_TRUE(problems.contains("transaction.boundary"));
  problems = refused(base(
      {{"exactly.once.source.support", "enabled"}, {"transaction.boundary.interval.ms", "100"}}));
  ASSERT_TRUE(problems.contains("transaction.boundary.interval.ms"));
  EXPECT_NE(problems.at("transaction.boundary.interval.ms").find("interval"), std::string::npos);
  problems = refused(base({{"transaction.boundary", "sometimes"}}));
  EXPECT_TRUE(problems.contains("transaction.boundary"));
}

TEST(ExactlyOnceConfigTest, WhatCannotWorkUnderExactlyOnceIsRefusedByName) {
  const auto problems = refused(base({{"exactly.once.source.support", "enabled"},
                                      {"offset.storage.file.filename", "/tmp/connect.offsets"},
                                      {"producer.override.transactional.id", "mine"},
                                      {"producer.override.message.timeout.ms", "0"}}));
  EXPECT_TRUE(problems.contains("offset.storage.file.filename"));
  EXPECT_TRUE(problems.contains("producer.override.transactional.id"));
  EXPECT_TRUE(problems.contains("producer.message.timeout.ms"));
  // Without exactly-once, the file and an infinite message timeout are fine.
  EXPECT_TRUE(refused(base({{"offset.storage.file.filename", "/tmp/connect.offsets"},
                            {"producer.override.message.timeout.ms", "0"}}))
                  .empty());
}

TEST(ExactlyOnceConfigTest, ATransactionOutlastsItsIntervalByDefaultAndMustDoSoWhenSet) {
  // Connect's defaults (a 60 s interval and a 60 s transaction timeout) let the broker abort a
  // transaction that opened right after a commit: ksink's default outlasts the interval.
  auto settings = SourceConnectorConfig::parse(Config(
      base({{"exactly.once.source.support", "enabled"}, {"transaction.boundary", "interval"}})));
  EXPECT_EQ(settings.transaction_boundary_interval, std::chrono::milliseconds(7000));
  EXPECT_EQ(settings.producer_properties.at("transaction.timeout.ms"), "67000");
  settings = SourceConnectorConfig::parse(Config(base({{"exactly.once.source.support", "enabled"},
                                                       {"transaction.boundary", "interval"},
                                                       {"offset.flush.interval.ms", "60000"}})));
  EXPECT_EQ(settings.producer_properties.at("transaction.timeout.ms"), "120000");
  const auto problems = refused(base({{"exactly.once.source.support", "enabled"},
                                      {"transaction.boundary", "interval"},
                                      {"transaction.boundary.interval.ms", "30000"},
                                      {"producer.override.transaction.timeout.ms", "20000"}}));
  ASSERT_TRUE(problems.contains("transaction.boundary.interval.ms"));
  EXPECT_NE(problems.at("transaction.boundary.interval.ms").find("20000"), std::string::npos);
}

TEST(ExactlyOnceConfigTest, WhatTransactionsNeedOfTheProducerCannotBeTurnedOff) {
  const auto problems = refused(base({{"exactly.once.source.support", "enabled"},
                                      {"producer.enable.idempotence", "false"},
                                      {"producer.override.acks", "1"}}));
  EXPECT_TRUE(problems.contains("producer.enable.idempotence"));
  EXPECT_TRUE(problems.contains("producer.override.acks"));
}

TEST(ExactlyOnceConfigTest, TheConnectorsOffsetsTopicBesideAnOffsetsFileIsRefused) {
  const auto problems = refused(base({{"offset.storage.file.filename", "/tmp/connect.offsets"},
                                      {"offsets.storage.topic", "orders-offsets"}}));
  EXPECT_TRUE(problems.contains("offsets.storage.topic")) << "it would be ignored";
}

TEST(ExactlyOnceConfigTest, AGroupIdSharesTheTasksThroughAGroupOfTheConnectorsOwn) {
  auto settings = SourceConnectorConfig::parse(Config(base()));
  EXPECT_FALSE(settings.shared_tasks) << "no group.id: this process runs every task";
  settings = SourceConnectorConfig::parse(Config(base({{"group.id", "dc-east"},
                                                       {"consumer.group.instance.id", "host-a"},
                                                       {"consumer.session.timeout.ms", "6000"}})));
  EXPECT_TRUE(settings.shared_tasks);
  EXPECT_EQ(settings.task_group, "dc-east-orders-tasks");
  const auto& member = settings.membership_properties;
  EXPECT_EQ(member.at("group.id"), "dc-east-orders-tasks");
  EXPECT_EQ(member.at("group.instance.id"), "host-a") << "static membership";
  EXPECT_EQ(member.at("session.timeout.ms"), "6000");
  EXPECT_EQ(member.at("heartbeat.interval.ms"), "3000") << "Connect's worker default";
  EXPECT_EQ(member.at("partition.assignment.strategy"), "cooperative-sticky");
  EXPECT_EQ(member.at("bootstrap.servers"), "localhost:9092");

  const auto problems = refused(base({{"group.id", "dc-east"},
                                      {"offset.storage.file.filename", "/tmp/connect.offsets"},
                                      {"consumer.group.instance.id", " "}}));
  EXPECT_TRUE(problems.contains("offset.storage.file.filename"))
      << "another process could not read this one's file";
  EXPECT_TRUE(problems.contains("consumer.group.instance.id"));
}

}  // namespace
}  // namespace ksink
