// StatusRecords: Kafka Connect's status topic records read as Connect 4.1's workers write them
// (tasks of connectors whose names hold dashes, tombstones, the KIP-558 records ksink skips) and
// written as Connect's JsonConverter writes them.
#include "status_records.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace ksink {
namespace {

TEST(StatusRecordsTest, ConnectsRecordsAreRead) {
  auto r = StatusRecord::read(
      "status-task-my-orders-12",
      R"({"state":"FAILED","trace":"java.lang.RuntimeException: down","worker_id":"10.0.0.7:8083",)"
      R"("generation":41,"version":"4.1.1"})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->name, "my-orders");
  EXPECT_EQ(r->task, 12);
  EXPECT_EQ(r->state, "FAILED");
  EXPECT_EQ(r->trace, "java.lang.RuntimeException: down");
  EXPECT_EQ(r->worker_id, "10.0.0.7:8083");
  EXPECT_EQ(r->generation, 41);

  r = StatusRecord::read("status-connector-my-orders",
                         R"({"state":"RUNNING","trace":null,"worker_id":"w:8083","generation":3})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->name, "my-orders");
  EXPECT_FALSE(r->task);
  EXPECT_EQ(r->state, "RUNNING");
  EXPECT_EQ(r->trace, "");

  r = StatusRecord::read("status-task-my-orders-0", std::nullopt);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->task, 0);
  EXPECT_FALSE(r->state);  // a tombstone

  EXPECT_FALSE(StatusRecord::read("status-topic-orders:connector-my-orders",
                                  R"({"topic":{"name":"orders","connector":"my-orders",)"
                                  R"("task":0,"discoverTimestamp":1}})"));
  EXPECT_THROW(StatusRecord::read("status-task-orders", R"({"state":"RUNNING"})"),
               std::invalid_argument);
  EXPECT_THROW(StatusRecord::read("status-task-orders-1z", R"({"state":"RUNNING"})"),
               std::invalid_argument);
  EXPECT_THROW(StatusRecord::read("status-connector-orders", R"({"trace":null})"),
               std::invalid_argument);
}

TEST(StatusRecordsTest, WrittenAsConnectWritesThem) {
  StatusRecord task{"my-orders", 3, "FAILED", "down \"hard\"", "127.0.0.1:8083", 0};
  EXPECT_EQ(task.key(), "status-task-my-orders-3");
  EXPECT_EQ(*task.value(),
            R"({"state":"FAILED","trace":"down \"hard\"","worker_id":"127.0.0.1:8083",)"
            R"("generation":0,"version":")" KSINK_VERSION R"("})");
  EXPECT_EQ(StatusRecord::read(task.key(), task.value()), task);

  StatusRecord connector{"orders", std::nullopt, "RUNNING", "", "h:1", 0};
  EXPECT_EQ(connector.key(), "status-connector-orders");
  EXPECT_TRUE(
      connector.value()->starts_with(R"({"state":"RUNNING","trace":null,"worker_id":"h:1")"));
  connector.state.reset();
  EXPECT_FALSE(connector.value());
}

}  // namespace
}  // namespace ksink
