// Topic creation by a source connector (KIP-158) as Kafka Connect configures it: when it is in use,
// the default group's required settings, groups inheriting them, the first matching group winning,
// exclusions over inclusions, a group's own topic configs — and every bad key refused by name.
// Parsed through SourceConnectorConfig::parse, as the worker does.
#include "topic_creation.h"

#include <gtest/gtest.h>

#include "ksink/config.h"
#include "ksink/config_exception.h"
#include "source_connector_config.h"

namespace ksink {
namespace {

SourceConnectorConfig parse(std::map<std::string, std::string> extra) {
  std::map<std::string, std::string> values{{"name", "src"}, {"bootstrap.servers", "x:9092"}};
  for (auto& [k, v] : extra) values.insert_or_assign(k, v);
  return SourceConnectorConfig::parse(Config(values));
}

// The keys refused, each with its reason, when parsing fails.
std::map<std::string, std::string> refused(std::map<std::string, std::string> extra) {
  std::map<std::string, std::string> out;
  try {
    parse(std::move(extra));
  } catch (const ConfigException& e) {
    for (const auto& p : e.problems()) out[p.key] = p.reason;
  }
  return out;
}

TEST(TopicCreationTest, NotInUseWithoutATopicCreationKeyOrWhenTheWorkerDisablesIt) {
  EXPECT_FALSE(parse({}).topic_creation);
  EXPECT_FALSE(parse({{"topic.creation.enable", "true"}}).topic_creation);
  EXPECT_FALSE(parse({{"topic.creation.enable", "false"},
                      {"topic.creation.default.partitions", "3"},
                      {"topic.creation.default.replication.factor", "1"}})
                   .topic_creation);
}

TEST(TopicCreationTest, TheDefaultGroupNeedsItsPartitionsAndReplicationFactor) {
  const auto problems = refused({{"topic.creation.default.cleanup.policy", "compact"}});
  EXPECT_TRUE(problems.contains("topic.creation.default.partitions"));
  EXPECT_TRUE(problems.contains("topic.creation.default.replication.factor"));
  EXPECT_NE(problems.at("topic.creation.default.partitions").find("required"), std::string::npos);

  const auto config = parse({{"topic.creation.default.partitions", "-1"},
                             {"topic.creation.default.replication.factor", "-1"}});
  ASSERT_TRUE(config.topic_creation);
  const auto& group = config.topic_creation->groupFor("any.topic");
  EXPECT_EQ(group.name, "default");
  EXPECT_EQ(group.partitions, -1);
  EXPECT_EQ(group.replication_factor, -1);
  EXPECT_TRUE(group.configs.empty());
}

TEST(TopicCreationTest, TheFirstListedGroupThatMatchesWinsAndExclusionsBeatInclusions) {
  const auto config = parse({
      {"topic.creation.groups", "compacted, audit"},
      {"topic.creation.default.partitions", "6"},
      {"topic.creation.default.replication.factor", "3"},
      {"topic.creation.default.retention.ms", "1000"},
      {"topic.creation.compacted.include", "db\\..*, state-.*"},
      {"topic.creation.compacted.exclude", "db\\.audit.*"},
      {"topic.creation.compacted.partitions", "2"},
      {"topic.creation.compacted.cleanup.policy", "compact"},
      {"topic.creation.audit.include", ".*audit.*"},
      {"topic.creation.audit.replication.factor", "1"},
  });
  ASSERT_TRUE(config.topic_creation);
  const auto& creation = *config.topic_creation;
  ASSERT_EQ(creation.groups().size(), 2u);

  const auto& compacted = creation.groupFor("db.accounts");
  EXPECT_EQ(compacted.name, "compacted");
  EXPECT_EQ(compacted.partitions, 2);
  EXPECT_EQ(compacted.replication_factor, 3);  // the default group's
  EXPECT_EQ(compacted.configs, (std::map<std::string, std::string>{{"cleanup.policy", "compact"}}));
  EXPECT_EQ(creation.groupFor("state-7").name, "compacted");

  const auto& audit = creation.groupFor("db.audit_log");  // excluded from the first group
  EXPECT_EQ(audit.name, "audit");
  EXPECT_EQ(audit.partitions, 6);
  EXPECT_EQ(audit.replication_factor, 1);
  EXPECT_TRUE(audit.configs.empty());  // the default group's configs are its own

  // A pattern matches the whole name, as Java's matches().
  EXPECT_EQ(creation.groupFor("xdb.accounts").name, "default");
  const auto& other = creation.groupFor("metrics");
  EXPECT_EQ(other.name, "default");
  EXPECT_EQ(other.configs, (std::map<std::string, std::string>{{"retention.ms", "1000"}}));
}

TEST(TopicCreationTest, TheDefaultGroupTakesEveryTopicWhateverItsIncludeSays) {
  const auto config = parse({{"topic.creation.default.partitions", "1"},
                             {"topic.creation.default.replication.factor", "1"},
                             {"topic.creation.default.include", "only-this"},
                             {"topic.creation.groups", "default"}});
  ASSERT_TRUE(config.topic_creation);
  EXPECT_TRUE(config.topic_creation->groups().empty());
  EXPECT_EQ(config.topic_creation->groupFor("something-else").name, "default");
  EXPECT_TRUE(config.topic_creation->defaultGroup().configs.empty());
}

TEST(TopicCreationTest, BadKeysAreRefusedByName) {
  const auto problems = refused({
      {"topic.creation.groups", "a, a, b"},
      {"topic.creation.default.partitions", "0"},
      {"topic.creation.default.replication.factor", "40000"},
      {"topic.creation.a.include", "(unclosed"},
      {"topic.creation.b.partitions", "many"},
      {"topic.creation.typo.include", ".*"},
      {"topic.creation.default", "x"},
  });
  EXPECT_NE(problems.at("topic.creation.groups").find("twice"), std::string::npos);
  EXPECT_NE(problems.at("topic.creation.default.partitions").find("-1"), std::string::npos);
  EXPECT_NE(problems.at("topic.creation.default.replication.factor").find("32767"),
            std::string::npos);
  EXPECT_NE(problems.at("topic.creation.a.include").find("(unclosed"), std::string::npos);
  EXPECT_TRUE(problems.contains("topic.creation.b.partitions"));
  EXPECT_NE(problems.at("topic.creation.typo.include").find("'typo'"), std::string::npos);
  EXPECT_TRUE(problems.contains("topic.creation.default"));
}

TEST(TopicCreationTest, ATopicSeenOnceIsNotLookedAtAgain) {
  auto config = parse({{"topic.creation.default.partitions", "1"},
                       {"topic.creation.default.replication.factor", "1"}});
  ASSERT_TRUE(config.topic_creation);
  auto& creation = *config.topic_creation;
  EXPECT_TRUE(creation.required("t"));
  creation.known("t");
  EXPECT_FALSE(creation.required("t"));
  EXPECT_TRUE(creation.required("u"));
}

}  // namespace
}  // namespace ksink
