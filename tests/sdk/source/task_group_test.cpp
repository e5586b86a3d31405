// TaskGroup on the embedded broker with tasks of a scripted kind and a manual clock: the
// group runs the task of each partition it is given and forwards a pause and a stop to them; a
// task that does not end by the stop's deadline is cancelled once the deadline and the slack
// passed on the group's clock, and one that does not end then either is given up on after the
// transaction timeout more — timing the test decides, not the machine.
#include "task_group.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <functional>
#include <mutex>
#include <set>

#include "manual_clock.h"
#include "mock_cluster.h"
#include "polling.h"
#include "shared_tasks.h"
#include "source_connector_config.h"
#include "worker_runner.h"

namespace ksink {
namespace {

using namespace std::chrono_literals;

// What the scripted tasks did, for the test to read; any thread.
struct Journal {
  std::mutex mutex;
  std::condition_variable changed;
  std::set<int> started;
  std::vector<std::string> events;  // "<id> stop", "<id> cancel", "<id> pause", "<id> ended"
  std::map<int, Clock::time_point> cancelled_at;
  bool release = false;  // lets a task that ignores everything end
  std::set<int> failed;  // the ids whose kFailOnce instance failed
  // Run by a task as it is asked to stop, as a connector's wakeup() runs (not under mutex).
  std::function<void()> on_stop;

  void add(const std::string& event) {
    std::lock_guard lock(mutex);
    events.push_back(event);
    changed.notify_all();
  }
  bool has(const std::string& event) {
    std::lock_guard lock(mutex);
    return std::find(events.begin(), events.end(), event) != events.end();
  }
  // Waits (in real time, at most `timeout`) for `event`.
  bool await(const std::string& event, std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, timeout, [&] {
      return std::find(events.begin(), events.end(), event) != events.end();
    });
  }
};

// How a task takes a stop: it ends, it ends only once cancelled, or it ends only when released;
// kFailOnce: the task's first instance fails as it runs, the next ones end at a stop.
enum class Obeys { kStop, kCancel, kNothing, kFailOnce };

class ScriptedTask final : public WorkerTask {
 public:
  ScriptedTask(int id, const Clock& clock, Obeys obeys, std::shared_ptr<Journal> journal)
      : WorkerTask(id, "scripted task " + std::to_string(id), "scripted", clock, 5000ms, 60000ms),
        obeys_(obeys),
        journal_(std::move(journal)) {}
  ~ScriptedTask() override { journal_->add(std::to_string(id()) + " ended"); }

 private:
  void start() override {
    std::lock_guard lock(journal_->mutex);
    journal_->started.insert(id());
    journal_->changed.notify_all();
  }
  void iteration() override {
    std::unique_lock lock(journal_->mutex);
    if (obeys_ == Obeys::kFailOnce && journal_->failed.insert(id()).second)
      throw std::runtime_error("the task's write failed");
    journal_->changed.wait(lock, [&] {
      if (journal_->release) return true;
      if (obeys_ == Obeys::kCancel) return stop_.cancelled();
      return (obeys_ == Obeys::kStop || obeys_ == Obeys::kFailOnce) && stop_.requested();
    });
  }
  std::exception_ptr finish(std::exception_ptr failure, Clock::time_point) override {
    journal_->add(std::to_string(id()) + " finished");
    return failure;
  }
  void onStop(Clock::time_point) override {
    if (journal_->on_stop) journal_->on_stop();
    journal_->add(std::to_string(id()) + " stop");
  }
  void onCancel() override {
    {
      std::lock_guard lock(journal_->mutex);
      journal_->cancelled_at[id()] = clock_.now();
    }
    journal_->add(std::to_string(id()) + " cancel");
  }
  void onPause(bool paused) override {
    journal_->add(std::to_string(id()) + (paused ? " pause" : " resume"));
  }

  const Obeys obeys_;
  std::shared_ptr<Journal> journal_;
};

class TaskGroupTest : public ::testing::Test {
 protected:
  // A group still running at the end (an assertion failed): its tasks released, its clock moved
  // on until its waits end.
  ~TaskGroupTest() override {
    {
      std::lock_guard lock(journal->mutex);
      journal->release = true;
      journal->changed.notify_all();
    }
    if (!run) return;
    group->stop(clock.now());
    for (int i = 0; i < 100 && !run->waitFinished(100ms); ++i) clock.advance(1s);
  }

  void start() {
    run = std::make_unique<test::BackgroundRun>([&] { group->run(); });
  }

  void makeGroup(std::map<int, Obeys> obeys, bool exit_on_task_failure = true) {
    cluster.createTopic("g-" + name + "-tasks", 2);  // the mock creates none on request
    const auto settings = SourceConnectorConfig::parse(
        Config({{"name", name},
                {"bootstrap.servers", cluster.bootstrap()},
                {"group.id", "g"},
                {"tasks.max", "2"},
                {"consumer.session.timeout.ms", "6000"},
                {"exit.on.task.failure", exit_on_task_failure ? "true" : "false"}}));
    transaction_timeout = settings.transaction_timeout;
    group = std::make_unique<TaskGroup>(
        settings.sharedTasks(),
        [this, obeys](int id, std::function<void()>) {
          return std::make_shared<ScriptedTask>(id, clock, obeys.at(id), journal);
        },
        clock);
  }
  // Both tasks started and shown as `state`.
  bool awaitTasks(const std::string& state) {
    return it::waitUntil(
        [&] {
          std::vector<TaskStatus> tasks;
          group->appendStatus(tasks);
          return tasks.size() == 2 && tasks[0].state == state && tasks[1].state == state;
        },
        20s);
  }

  test::MockCluster cluster;
  const std::string name = test::currentTestName();
  // The group's waits for its tasks end when the test moves it past their deadline.
  test::ManualClock clock;
  std::shared_ptr<Journal> journal = std::make_shared<Journal>();
  std::chrono::milliseconds transaction_timeout{};
  std::unique_ptr<TaskGroup> group;
  std::unique_ptr<test::BackgroundRun> run;
};

// exit.on.task.failure=false (ksink run's default): a task that fails stays FAILED, shown, while
// the other runs, and a restart replaces it.
TEST_F(TaskGroupTest, AFailedTaskStaysFailedWhileTheOtherRunsAndARestartReplacesIt) {
  makeGroup({{0, Obeys::kFailOnce}, {1, Obeys::kStop}}, /*exit_on_task_failure=*/false);
  start();
  const auto states = [&] {
    std::vector<TaskStatus> tasks;
    group->appendStatus(tasks);
    std::map<int, std::string> out;
    for (const auto& t : tasks) out[t.id] = t.state;
    return out;
  };
  ASSERT_TRUE(it::waitUntil(
      [&] {
        auto s = states();
        return s[0] == "FAILED" && s[1] == "RUNNING";
      },
      20s));
  EXPECT_FALSE(run->waitFinished(200ms));  // the group runs on
  EXPECT_THROW(group->restartOwnTask(5), std::out_of_range);
  EXPECT_TRUE(group->restartOwnTask(0));
  EXPECT_TRUE(it::waitUntil(
      [&] {
        auto s = states();
        return s[0] == "RUNNING" && s[1] == "RUNNING";
      },
      20s));
}

TEST_F(TaskGroupTest, RunsATaskPerPartitionForwardsAPauseAndAStopAndShowsThem) {
  makeGroup({{0, Obeys::kStop}, {1, Obeys::kStop}});
  group->pause();
  start();
  ASSERT_TRUE(awaitTasks("PAUSED")) << "a task the group starts while paused is paused";
  EXPECT_EQ(group->status().state, "PAUSED");
  EXPECT_EQ(group->status().id, -1);
  group->resume();
  EXPECT_TRUE(journal->has("0 resume") && journal->has("1 resume"));
  EXPECT_TRUE(awaitTasks("RUNNING"));

  // A task's reaction to the stop may read the group's status (a connector's wakeup() may call
  // back into the worker): the group does not hold its lock while it asks its tasks to stop.
  journal->on_stop = [&] {
    std::vector<TaskStatus> tasks;
    group->appendStatus(tasks);
  };
  group->stop(clock.now() + 1s);
  ASSERT_TRUE(run->waitFinished(20s));
  EXPECT_EQ(run->errorMessage(), "");
  EXPECT_TRUE(journal->has("0 stop") && journal->has("1 stop"));
  EXPECT_TRUE(journal->has("0 ended") && journal->has("1 ended"));
  EXPECT_FALSE(journal->has("0 cancel")) << "a task that ended in time is not cancelled";
  EXPECT_EQ(group->status().state, "STOPPED");
}

TEST_F(TaskGroupTest, ATaskPastItsDeadlineIsCancelledAfterTheSlackAndOneThatStillRunsGivenUp) {
  makeGroup({{0, Obeys::kCancel}, {1, Obeys::kNothing}});
  start();
  ASSERT_TRUE(awaitTasks("RUNNING"));
  const auto deadline = clock.now() + 1s;
  const auto waits = clock.waits();
  group->stop(deadline);
  ASSERT_TRUE(clock.awaitWaits(waits + 1, 10s)) << "the group does not wait for task 0";

  clock.advance(1499ms);  // the deadline, and the slack (500 ms) but for one millisecond
  EXPECT_FALSE(journal->await("0 cancel", 100ms)) << "cancelled before the slack passed";
  clock.advance(1ms);
  ASSERT_TRUE(journal->await("0 cancel", 10s));
  ASSERT_TRUE(journal->await("0 finished", 10s)) << "the cancelled task did not end";
  {
    std::lock_guard lock(journal->mutex);
    EXPECT_EQ(journal->cancelled_at[0], deadline + 500ms);
  }
  // Task 1's deadline passed too: cancelled at once (a wait that ends at once), then waited for
  // the transaction timeout — the fourth wait since the stop, after task 0's two.
  ASSERT_TRUE(journal->await("1 cancel", 10s));
  ASSERT_TRUE(clock.awaitWaits(waits + 4, 10s)) << "the group does not wait for task 1";
  clock.advance(transaction_timeout - 1ms);
  EXPECT_FALSE(run->waitFinished(100ms)) << "given up on before the transaction timeout";
  clock.advance(1ms);
  ASSERT_TRUE(run->waitFinished(20s)) << "the group waits for a task that never ends";
  EXPECT_EQ(run->errorMessage(), "");
  EXPECT_FALSE(journal->has("1 ended")) << "left to its thread, not joined";
  {
    std::lock_guard lock(journal->mutex);
    journal->release = true;
    journal->changed.notify_all();
  }
  EXPECT_TRUE(journal->await("1 ended", 10s))
      << "the abandoned task's thread did not end once released";
}

// A sink shares its tasks in a cluster (config.storage.topic), whether or not group.id is set (its
// default names the group); a source only with a group.id set.
TEST(TasksSharedTest, ASinkSharesItsTasksInAClusterAndASourceWithAGroupIdSet) {
  using Values = std::map<std::string, std::string>;
  EXPECT_TRUE(tasksShared(Config(Values{{"config.storage.topic", "connect-configs"}}), true));
  EXPECT_FALSE(tasksShared(Config(Values{{"config.storage.topic", " "}}), true));
  EXPECT_FALSE(tasksShared(Config(Values{{"group.id", "connect-cluster"}}), true));
  EXPECT_TRUE(tasksShared(Config(Values{{"group.id", "connect-cluster"}}), false));
  EXPECT_FALSE(tasksShared(Config(Values{{"config.storage.topic", "connect-configs"}}), false));
  // Its group: group.id's, or the worker's default one, also through a view without definitions.
  const Values sink{{"name", "orders"},
                    {"bootstrap.servers", "127.0.0.1:9092"},
                    {"config.storage.topic", "connect-configs"}};
  EXPECT_EQ(sinkSharedTasks(Config(sink)).task_group, "connect-cluster-orders-tasks");
  auto named = sink;
  named["group.id"] = "etl";
  EXPECT_EQ(sinkSharedTasks(Config(named)).task_group, "etl-orders-tasks");
}

}  // namespace
}  // namespace ksink
