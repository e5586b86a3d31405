// ConfigRecords: Kafka Connect's config topic records read as Connect's workers write them (old
// and new target states, restart requests, tombstones; the records ksink skips) and written byte
// for byte as Connect's JsonConverter writes them.
#include "config_records.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace ksink {
namespace {

using Kind = ConfigRecord::Kind;
using Target = ConfigRecord::Target;

TEST(ConfigRecordsTest, ConnectsRecordsAreRead) {
  auto r = ConfigRecord::read("connector-orders",
                              R"({"properties":{"connector.class":"sqlite","tasks.max":"2",)"
                              R"("topics":"orders","removed":null}})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->kind, Kind::kConnector);
  EXPECT_EQ(r->name, "orders");
  EXPECT_EQ(r->config,
            (std::map<std::string, std::string>{
                {"connector.class", "sqlite"}, {"tasks.max", "2"}, {"topics", "orders"}}));

  r = ConfigRecord::read("connector-orders", std::nullopt);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->kind, Kind::kDeleted);

  // A 3.5+ worker writes STOPPED in state.v2 and PAUSED in state, for workers that know no STOPPED.
  r = ConfigRecord::read("target-state-orders", R"({"state":"PAUSED","state.v2":"STOPPED"})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->kind, Kind::kTarget);
  EXPECT_EQ(r->target, Target::kStopped);
  r = ConfigRecord::read("target-state-orders", R"({"state":"PAUSED"})");  // an older worker's
  ASSERT_TRUE(r);
  EXPECT_EQ(r->target, Target::kPaused);

  r = ConfigRecord::read("restart-connector-orders",
                         R"({"include-tasks":true,"only-failed":false})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->kind, Kind::kRestart);
  EXPECT_TRUE(r->include_tasks);
  EXPECT_FALSE(r->only_failed);

  // What a Connect leader derives for its own workers is skipped.
  for (const char* key : {"task-orders-0", "commit-orders", "tasks-fencing-orders", "session-key",
                          "logger-cluster-org.apache"})
    EXPECT_FALSE(ConfigRecord::read(key, R"({"tasks":1})")) << key;
  EXPECT_FALSE(ConfigRecord::read("target-state-orders", std::nullopt));
}

TEST(ConfigRecordsTest, WhatIsNotTheRecordsJsonIsRefused) {
  EXPECT_THROW(ConfigRecord::read("connector-x", "not json"), std::invalid_argument);
  EXPECT_THROW(ConfigRecord::read("connector-x", R"({"config":{}})"), std::invalid_argument);
  EXPECT_THROW(ConfigRecord::read("target-state-x", R"({"state":"RUNNING"})"),
               std::invalid_argument);
}

TEST(ConfigRecordsTest, RecordsAreWrittenAsConnectWritesThem) {
  const auto connector = ConfigRecord::connector("orders", {{"b", "2"}, {"a", "1"}});
  EXPECT_EQ(connector.key(), "connector-orders");
  EXPECT_EQ(connector.value(), R"({"properties":{"a":"1","b":"2"}})");
  EXPECT_EQ(ConfigRecord::targetState("orders", Target::kStopped).value(),
            R"({"state":"PAUSED","state.v2":"STOPPED"})");
  EXPECT_EQ(ConfigRecord::targetState("orders", Target::kStarted).value(),
            R"({"state":"STARTED","state.v2":"STARTED"})");
  EXPECT_EQ(ConfigRecord::restart("orders", true, true).key(), "restart-connector-orders");
  EXPECT_EQ(ConfigRecord::restart("orders", true, true).value(),
            R"({"include-tasks":true,"only-failed":true})");
  const auto deleted = ConfigRecord::deleted("orders");
  ASSERT_EQ(deleted.size(), 2u);
  EXPECT_EQ(deleted[0].key(), "connector-orders");
  EXPECT_EQ(deleted[1].key(), "target-state-orders");
  EXPECT_FALSE(deleted[0].value() || deleted[1].value()) << "tombstones";
  // Read back as written.
  const auto read = ConfigRecord::read(connector.key(), connector.value());
  ASSERT_TRUE(read);
  EXPECT_EQ(read->config, connector.config);
}

}  // namespace
}  // namespace ksink
