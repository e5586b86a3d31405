// A source connector's tasks shared by several `ksink run` processes (worker group.id set) through
// Kafka's group membership, exactly once, against the real broker: SQLite tables read by the
// JDBC source (mode=incrementing, tables shared out by task id) while a writer keeps inserting.
//   - three processes share tasks.max=3; one killed with -9 has its tasks taken over by the others
//     within the session timeout, and every row reaches Kafka exactly once;
//   - with static membership (consumer.group.instance.id) a process killed and restarted gets its
//     task back at once, not after the session timeout;
//   - a process started with tasks.max=5 while two with 1 run (one idle) fences the old split
//     first, and the idle one, given tasks after the change, starts none;
//   - tasks.max 3 → 5 → 1 → 3 across restarts: no row twice, none missing (the tasks topic grows
//     with tasks.max, and the ids past a lowered tasks.max are fenced).
#include <SQLiteCpp/Database.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <thread>

#include "child_process.h"
#include "polling.h"
#include "test_kafka.h"
#include "topic_reader.h"

namespace ksink::it {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

constexpr int kTables = 6;
constexpr int kSessionTimeoutMs = 6000;

class SharedSourceTasksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = freshDir("shared-source");
    name_ = uniqueName("shared-src");
    group_ = uniqueName("cluster");
    file_ = (dir_ / "source.db").string();
    SQLite::Database db(file_, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("PRAGMA journal_mode=WAL");
    for (int t = 0; t < kTables; ++t) {
      db.exec(fmt::format("CREATE TABLE t{} (id INTEGER PRIMARY KEY AUTOINCREMENT, v TEXT)", t));
      RealKafka::shared().createTopic(topic(t), 1);
    }
  }
  void TearDown() override { stopWriter(); }

  std::string topic(int table) const { return fmt::format("{}-t{}", name_, table); }

  // Inserts a row into each table every few milliseconds until stopWriter().
  void startWriter() {
    writer_ = std::thread([this] {
      SQLite::Database db(file_, SQLite::OPEN_READWRITE);
      db.setBusyTimeout(5000);
      while (!stop_writer_) {
        for (int t = 0; t < kTables; ++t)
          db.exec(fmt::format("INSERT INTO t{} (v) VALUES ('x')", t));
        std::this_thread::sleep_for(5ms);
      }
    });
  }
  void stopWriter() {
    stop_writer_ = true;
    if (writer_.joinable()) writer_.join();
  }
  int64_t rows(int table) {
    SQLite::Database db(file_, SQLite::OPEN_READONLY);
    return db.execAndGet(fmt::format("SELECT count(*) FROM t{}", table)).getInt64();
  }

  std::unique_ptr<ChildProcess> start(const std::string& tag, int tasks_max,
                                      const std::string& worker_extra = "",
                                      int session_timeout_ms = kSessionTimeoutMs) {
    const auto worker = dir_ / (tag + "-worker.properties");
    std::ofstream(worker) << fmt::format(
        "bootstrap.servers={}\nexit.on.task.failure=true\ngroup.id={}\noffset.storage.topic={}-"
        "offsets\n"
        "offset.storage.replication.factor=1\noffset.storage.partitions=3\n"
        "exactly.once.source.support=enabled\nconsumer.session.timeout.ms={}\n"
        "consumer.heartbeat.interval.ms=1000\nlisteners=\n{}",
        RealKafka::shared().bootstrap(), group_, name_, session_timeout_ms, worker_extra);
    const auto connector = dir_ / (tag + "-source.properties");
    std::ofstream(connector) << fmt::format(
        "name={}\nconnector.class=io.confluent.connect.jdbc.JdbcSourceConnector\n"
        "connection.url=jdbc:sqlite:{}\nmode=incrementing\ntopic.prefix={}-\n"
        "poll.interval.ms=100\nbatch.max.rows=50\ntasks.max={}\n"
        "value.converter=org.apache.kafka.connect.json.JsonConverter\n"
        "value.converter.schemas.enable=false\n",
        name_, file_, name_, tasks_max);
    return std::make_unique<ChildProcess>(
        std::vector<std::string>{KSINK_BIN, "run", worker.string(), connector.string()},
        dir_ / (tag + ".log"));
  }

  // The tasks a process's log says it runs now (started and not stopped since).
  static std::set<int> tasksOf(const ChildProcess& ksink) {
    static const std::regex line(R"((running|stopping) task (\d+) here)");
    std::set<int> out;
    const auto log = ksink.log();
    for (auto it = std::sregex_iterator(log.begin(), log.end(), line); it != std::sregex_iterator();
         ++it) {
      if ((*it)[1].str() == "running")
        out.insert(std::stoi((*it)[2].str()));
      else
        out.erase(std::stoi((*it)[2].str()));
    }
    return out;
  }

  // How many times each id of `table` is in its topic's committed transactions.
  std::map<int64_t, int> idCounts(int table) {
    static const std::regex id(R"("id":(\d+))");
    std::map<int64_t, int> out;
    for (const auto& r :
         test::readCommitted(RealKafka::shared().bootstrap(), topic(table), 0, 60s)) {
      std::smatch m;
      const auto value = r.value.value_or("");
      if (std::regex_search(value, m, id)) ++out[std::stoll(m[1].str())];
    }
    return out;
  }

  // Every row of every table in Kafka exactly once (waits for the last ones first).
  void expectEveryRowOnce() {
    for (int t = 0; t < kTables; ++t) {
      const auto total = rows(t);
      ASSERT_TRUE(
          waitUntil([&] { return static_cast<int64_t>(idCounts(t).size()) >= total; }, 90s, 500ms))
          << "table t" << t << ": " << idCounts(t).size() << " of " << total;
      const auto counts = idCounts(t);
      ASSERT_EQ(static_cast<int64_t>(counts.size()), total) << "t" << t;
      for (const auto& [id, times] : counts) ASSERT_EQ(times, 1) << "t" << t << " id " << id;
      ASSERT_EQ(counts.begin()->first, 1);
      ASSERT_EQ(counts.rbegin()->first, total) << "t" << t << ": a gap";
    }
  }

  static void stopGracefully(ChildProcess& ksink) {
    ksink.signal(SIGTERM);
    ASSERT_EQ(ksink.wait(30s), 0) << ksink.log();
  }

  fs::path dir_;
  std::string name_, group_, file_;
  std::thread writer_;
  std::atomic<bool> stop_writer_{false};
};

TEST_F(SharedSourceTasksTest, ThreeProcessesShareTheTasksAndTakeOverAKilledOnesExactlyOnce) {
  startWriter();
  std::vector<std::unique_ptr<ChildProcess>> processes;
  for (int i = 0; i < 3; ++i) processes.push_back(start(fmt::format("p{}", i), 3));
  // Each task runs in exactly one process, and each process runs one.
  auto spread = [&] {
    std::multiset<int> all;
    for (const auto& p : processes)
      for (int t : tasksOf(*p)) all.insert(t);
    return all;
  };
  auto oneEach = [&] {
    for (const auto& p : processes)
      if (tasksOf(*p).size() != 1) return false;
    return spread() == std::multiset<int>{0, 1, 2};
  };
  ASSERT_TRUE(waitUntil(oneEach, 60s))
      << processes[0]->log() << processes[1]->log() << processes[2]->log();
  std::this_thread::sleep_for(2s);

  // The process running task 1 dies.
  size_t victim = 0;
  while (!tasksOf(*processes[victim]).contains(1)) ++victim;
  processes[victim]->signal(SIGKILL);
  processes[victim]->wait(10s);
  const auto killed_at = std::chrono::steady_clock::now();
  auto taken_over = [&] {
    for (size_t i = 0; i < processes.size(); ++i)
      if (i != victim && tasksOf(*processes[i]).contains(1)) return true;
    return false;
  };
  ASSERT_TRUE(waitUntil(taken_over, 60s));
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - killed_at);
  EXPECT_LT(took.count(), kSessionTimeoutMs + 10000) << "within the session timeout (and a join)";
  RecordProperty("takeover_ms", static_cast<int>(took.count()));
  std::this_thread::sleep_for(2s);
  stopWriter();
  ASSERT_NO_FATAL_FAILURE(expectEveryRowOnce());
  for (size_t i = 0; i < processes.size(); ++i)
    if (i != victim) {
      ASSERT_NO_FATAL_FAILURE(stopGracefully(*processes[i]));
    }
}

TEST_F(SharedSourceTasksTest, AKilledProcessBackUnderItsInstanceIdGetsItsTasksBackAtOnce) {
  constexpr int kLongSession = 30000;  // a takeover would wait this long
  startWriter();
  auto a = start("a", 2, "consumer.group.instance.id=a\n", kLongSession);
  ASSERT_TRUE(waitUntil([&] { return tasksOf(*a).size() == 2; }, 60s)) << a->log();
  auto b = start("b", 2, "consumer.group.instance.id=b\n", kLongSession);
  ASSERT_TRUE(waitUntil([&] { return tasksOf(*a).size() == 1 && tasksOf(*b).size() == 1; }, 60s))
      << a->log() << b->log();
  const int b_task = *tasksOf(*b).begin();
  std::this_thread::sleep_for(1s);
  b->signal(SIGKILL);
  b->wait(10s);
  auto b_again = start("b-again", 2, "consumer.group.instance.id=b\n", kLongSession);
  const auto restarted_at = std::chrono::steady_clock::now();
  ASSERT_TRUE(waitUntil([&] { return tasksOf(*b_again).contains(b_task); }, 60s)) << b_again->log();
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - restarted_at);
  EXPECT_LT(took.count(), kLongSession / 2) << "its own task again, not after the session timeout";
  EXPECT_EQ(tasksOf(*a).size(), 1u) << "the other process kept its task throughout";
  RecordProperty("static_rejoin_ms", static_cast<int>(took.count()));
  std::this_thread::sleep_for(1s);
  stopWriter();
  ASSERT_NO_FATAL_FAILURE(expectEveryRowOnce());
  ASSERT_NO_FATAL_FAILURE(stopGracefully(*a));
  ASSERT_NO_FATAL_FAILURE(stopGracefully(*b_again));
}

// A rolling reconfiguration: a process with tasks.max=5 joins while two with the old 1 still run
// (the tables split differently), one running the task, one idle (the group has more members
// than the topic partitions): the new one fences every task id first, so the running old
// tasks can commit nothing more and their process stops; the idle old process, given tasks by the
// rebalance after the change, starts none of the old split and stops too (issue 36, item 9: it had
// nothing fenced and would start one with a fresh producer epoch); no row twice.
TEST_F(SharedSourceTasksTest, AProcessWithAnotherTasksMaxFencesTheOldSplitBeforeItRuns) {
  startWriter();
  auto old_split = start("old", 1);
  ASSERT_TRUE(waitUntil([&] { return tasksOf(*old_split).size() == 1; }, 60s)) << old_split->log();
  // Joins a group whose one partition is taken: it gets no task.
  auto old_idle = start("old-idle", 1);
  ASSERT_TRUE(waitUntil(
      [&] { return old_idle->log().find("sharing 1 task(s)") != std::string::npos; }, 30s))
      << old_idle->log();
  std::this_thread::sleep_for(2s);
  if (!tasksOf(*old_idle).empty())
    GTEST_FAIL() << "the idle process got tasks\n" << old_idle->log();
  auto new_split = start("new", 5);
  const auto exit_status = old_split->wait(60s);
  ASSERT_TRUE(exit_status) << "the old split still runs\n" << old_split->log();
  EXPECT_NE(*exit_status, 0);
  EXPECT_NE(old_split->log().find("fenced"), std::string::npos) << old_split->log();
  const auto idle_status = old_idle->wait(60s);
  ASSERT_TRUE(idle_status) << "the idle old process still runs\n" << old_idle->log();
  EXPECT_NE(*idle_status, 0);
  EXPECT_NE(old_idle->log().find("another process changed tasks.max to 5"), std::string::npos)
      << old_idle->log();
  EXPECT_EQ(old_idle->log().find("running task"), std::string::npos)
      << "it started a task of the old split\n"
      << old_idle->log();
  // (the old process may die of the fencing before the new one logged it)
  EXPECT_TRUE(waitUntil(
      [&] { return new_split->log().find("fenced the producers of task 0") != std::string::npos; },
      30s))
      << new_split->log();
  ASSERT_TRUE(waitUntil([&] { return tasksOf(*new_split).size() == 5; }, 60s)) << new_split->log();
  std::this_thread::sleep_for(1s);
  stopWriter();
  ASSERT_NO_FATAL_FAILURE(expectEveryRowOnce());
  ASSERT_NO_FATAL_FAILURE(stopGracefully(*new_split));
}

TEST_F(SharedSourceTasksTest, TasksMaxThreeFiveOneThreeAcrossRestartsNoDuplicateNoGap) {
  startWriter();
  for (int tasks_max : {3, 5, 1, 3}) {
    auto ksink = start(fmt::format("tasks-{}", tasks_max), tasks_max);
    ASSERT_TRUE(
        waitUntil([&] { return static_cast<int>(tasksOf(*ksink).size()) == tasks_max; }, 60s))
        << ksink->log();
    if (tasks_max == 1) {
      EXPECT_NE(ksink->log().find("fenced the producers of task 4"), std::string::npos)
          << ksink->log();
    }
    std::this_thread::sleep_for(2s);
    ASSERT_NO_FATAL_FAILURE(stopGracefully(*ksink));
  }
  stopWriter();
  auto last = start("last", 3);
  ASSERT_NO_FATAL_FAILURE(expectEveryRowOnce());
  ASSERT_NO_FATAL_FAILURE(stopGracefully(*last));
}

}  // namespace
}  // namespace ksink::it
