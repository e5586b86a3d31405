// StatusTopic on the embedded broker: two processes' statuses, each read by the other, and a
// process writing over a task's status only while the topic's last record of it is its own.
#include "status_topic.h"

#include <gtest/gtest.h>

#include <mutex>

#include "mock_cluster.h"
#include "polling.h"

namespace ksink {
namespace {

using namespace std::chrono_literals;

// One process's statuses, as its herder would show them.
class Shown {
 public:
  void set(std::vector<StatusRecord> records) {
    std::lock_guard lock(mutex_);
    records_ = std::move(records);
  }
  StatusTopic::Current current() {
    return [this] {
      std::lock_guard lock(mutex_);
      return records_;
    };
  }

 private:
  std::mutex mutex_;
  std::vector<StatusRecord> records_;
};

StatusRecord task(int id, std::string state) {
  return {"c", id, std::move(state), "", "", 0};
}
StatusRecord connector(std::string state) {
  return {"c", std::nullopt, std::move(state), "", "", 0};
}

TEST(StatusTopicTest, AProcessWritesOverOnlyWhatIsStillItsOwn) {
  test::MockCluster cluster;
  cluster.createTopic("status", 5);
  const std::map<std::string, std::string> client{{"bootstrap.servers", cluster.bootstrap()}};
  // Before the topics: a topic's publisher reads its Shown until the topic is destroyed.
  Shown shown_a, shown_b;
  StatusTopic a(client, "status", 5, 1, 20ms), b(client, "status", 5, 1, 20ms);
  shown_a.set({connector("RUNNING"), task(0, "RUNNING")});
  shown_b.set({connector("RUNNING")});
  a.start();
  b.start();
  a.publish(shown_a.current(), "a:1");
  b.publish(shown_b.current(), "b:1");
  const auto holds = [](const StatusTopic& topic, int id, const std::string& state,
                        const std::string& worker) {
    const auto r = topic.task("c", id);
    return r && r->state == state && r->worker_id == worker;
  };
  EXPECT_TRUE(it::waitUntil([&] { return holds(b, 0, "RUNNING", "a:1"); }, 10s));

  // The task moves: b runs it while a still does (a rebalance's overlap), then a stops it. Both
  // end up showing b's record: a writes nothing over it, or b writes its own again over a's
  // (UNASSIGNED written before a read b's).
  shown_b.set({connector("RUNNING"), task(0, "RUNNING")});
  ASSERT_TRUE(it::waitUntil([&] { return holds(a, 0, "RUNNING", "b:1"); }, 10s));
  shown_a.set({connector("RUNNING"), task(1, "FAILED")});
  ASSERT_TRUE(it::waitUntil([&] { return holds(b, 1, "FAILED", "a:1"); }, 10s));
  shown_a.set({connector("RUNNING"), task(1, "RUNNING")});  // a publishing round after that one
  ASSERT_TRUE(it::waitUntil([&] { return holds(b, 1, "RUNNING", "a:1"); }, 10s));
  EXPECT_TRUE(it::waitUntil(
      [&] { return holds(a, 0, "RUNNING", "b:1") && holds(b, 0, "RUNNING", "b:1"); }, 10s));
  // The former owner's UNASSIGNED landing after the new owner's record: the owner writes its own
  // again.
  // (A marker after it in its partition says when it was read.)
  StatusRecord stale = task(0, "UNASSIGNED"), marker = task(9, "RUNNING");
  stale.worker_id = "a:1";
  marker.worker_id = "x:1";
  cluster.produce("status", 0, {{stale.key(), stale.value()}, {marker.key(), marker.value()}});
  ASSERT_TRUE(it::waitUntil([&] { return holds(a, 9, "RUNNING", "x:1"); }, 10s));
  EXPECT_TRUE(it::waitUntil(
      [&] { return holds(a, 0, "RUNNING", "b:1") && holds(b, 0, "RUNNING", "b:1"); }, 10s));

  // b stops: its task runs nowhere, under b's id; a's task 1, stopped in a, too.
  b.stop();
  EXPECT_TRUE(it::waitUntil([&] { return holds(a, 0, "UNASSIGNED", "b:1"); }, 10s));
  shown_a.set({connector("RUNNING")});
  EXPECT_TRUE(it::waitUntil([&] { return holds(a, 1, "UNASSIGNED", "a:1"); }, 10s));
  // The connector deleted: a forgets what is its own.
  shown_a.set({});
  EXPECT_TRUE(it::waitUntil([&] { return !a.task("c", 1); }, 10s));
  EXPECT_TRUE(holds(a, 0, "UNASSIGNED", "b:1"));
}

}  // namespace
}  // namespace ksink
