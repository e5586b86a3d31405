// ExactlyOnceSourceTask on the embedded broker (which serves transactions) with a manual clock:
// when an interval transaction ends is decided by the clock the task is given, not by the
// machine's speed — on the task's thread between batches, and on the committer thread while the
// task's poll() waits for data.
#include "exactly_once_source_task.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>

#include "ksink/source_task.h"
#include "manual_clock.h"
#include "mock_cluster.h"
#include "offset_stores.h"
#include "polling.h"
#include "source_task_adapter.h"
#include "topic_reader.h"
#include "worker_runner.h"

namespace ksink {
namespace {

using namespace std::chrono_literals;

// Two batches of five, then nothing: poll() returns at once, or waits until woken.
struct PollScript {
  bool wait_when_done = false;
  int polls = 0;
  bool waiting = false;  // in a poll() that waits
  bool woken = false;
  std::mutex mutex;  // guards the above
  std::condition_variable changed;
};

class TwoBatches final : public SourceTask {
 public:
  explicit TwoBatches(std::shared_ptr<PollScript> script) : script_(std::move(script)) {}
  void start(const Config& config) override { topic_ = config.getString("topic"); }
  std::vector<SourceRecord> poll() override {
    std::unique_lock lock(script_->mutex);
    const int poll = script_->polls++;
    script_->changed.notify_all();
    if (poll >= 2) {
      if (!script_->wait_when_done) return {};
      script_->waiting = true;
      script_->changed.wait(lock, [&] { return script_->woken; });
      script_->waiting = false;
      return {};
    }
    std::vector<SourceRecord> out;
    for (int i = poll * 5; i < poll * 5 + 5; ++i)
      out.emplace_back(SourceMap{{"stream", Value::string("s")}},
                       SourceMap{{"seq", Value::integer(i)}}, topic_, std::nullopt,
                       SchemaAndValue{nullptr, Value::string(std::to_string(i))});
    return out;
  }
  void wakeup() override {
    std::lock_guard lock(script_->mutex);
    script_->woken = true;
    script_->changed.notify_all();
  }
  void stop() override {}

 private:
  std::shared_ptr<PollScript> script_;
  std::string topic_;
};

class ExactlyOnceSourceTaskTest : public ::testing::Test {
 protected:
  ExactlyOnceSourceTaskTest() {
    cluster.createTopic(topic, 1);
    cluster.createTopic(offsets_topic, 1);
    ConfigDef def;
    def.define("topic", ConfigDef::Type::kString, std::nullopt, ConfigDef::Importance::kHigh, "");
    const Config config({{"name", name},
                         {"bootstrap.servers", cluster.bootstrap()},
                         {"topic", topic},
                         {"offset.storage.topic", offsets_topic},
                         {"exactly.once.source.support", "enabled"},
                         {"transaction.boundary", "interval"},
                         {"transaction.boundary.interval.ms", "60000"},
                         {"value.converter", "org.apache.kafka.connect.storage.StringConverter"}},
                        def);
    const auto settings = SourceConnectorConfig::parse(config);
    auto driver = sourceDriverFactory([s = script] { return std::make_unique<TwoBatches>(s); })();
    task = std::make_unique<ExactlyOnceSourceTask>(0, settings, config, std::move(driver),
                                                   openTopicOffsetStore(settings), clock);
  }

  // A task still running at the end (an assertion failed) is stopped, its clock moved on until
  // its waits end.
  ~ExactlyOnceSourceTaskTest() override {
    if (run) stopTask();
  }

  void start() {
    run = std::make_unique<test::BackgroundRun>([&] { task->run(); });
  }
  // Moves the clock on, then waits until `turns` waits on it began (the loops went round).
  void advance(std::chrono::milliseconds by, uint64_t turns) {
    const auto before = clock.waits();
    clock.advance(by);
    ASSERT_TRUE(clock.awaitWaits(before + turns, 10s)) << "the task's loops did not turn";
  }
  // Stops the task, moving the clock on while it ends (its loop's waits are on it).
  void stopTask() {
    task->stop(clock.now() + 5s);
    for (int i = 0; i < 1000 && !run->waitFinished(10ms); ++i) clock.advance(10ms);
    EXPECT_TRUE(run->finished());
    EXPECT_EQ(run->errorMessage(), "");
    run.reset();
  }

  uint64_t commits() const {
    const auto source = task->status().counters.source;
    return source ? source->transaction_commit_total : 0;
  }
  bool awaitPolls(int polls) {
    std::unique_lock lock(script->mutex);
    return script->changed.wait_for(lock, 10s, [&] { return script->polls >= polls; });
  }
  size_t committedRecords() {
    return test::readCommitted(cluster.bootstrap(), topic, 0, 5s).size();
  }
  // The last source offset the task stored. The task produces it into the transaction it commits
  // with, so it says which transactions ended even on the mock, whose read_committed also shows
  // the records of a transaction still open (reference: mock-cluster.md, 8a).
  std::string storedOffset() {
    const auto stored = test::readCommitted(cluster.bootstrap(), offsets_topic, 0, 5s);
    return stored.empty() ? "" : stored.back().value.value_or("<null>");
  }

  test::MockCluster cluster;
  const std::string name = test::currentTestName();
  const std::string topic = name + "-data";
  const std::string offsets_topic = name + "-offsets";
  test::ManualClock clock;
  std::shared_ptr<PollScript> script = std::make_shared<PollScript>();
  std::unique_ptr<ExactlyOnceSourceTask> task;
  std::unique_ptr<test::BackgroundRun> run;
};

TEST_F(ExactlyOnceSourceTaskTest, AnIntervalTransactionEndsOnTheTasksClockNotBefore) {
  start();
  // The first transaction ends with its first batch (whether the task wants its records back for
  // commitRecord() is not known yet); the second batch opens the next one.
  ASSERT_TRUE(awaitPolls(3));
  ASSERT_TRUE(it::waitUntil([&] { return commits() == 1; }, 10s));
  advance(59s, 2);  // the task's thread and the committer, once each
  EXPECT_EQ(commits(), 1u) << "committed before transaction.boundary.interval.ms passed";
  EXPECT_EQ(storedOffset(), R"({"seq":4})") << "the second batch's transaction is still open";

  clock.advance(1s);
  ASSERT_TRUE(it::waitUntil([&] { return commits() == 2; }, 10s));
  EXPECT_EQ(committedRecords(), 10u);
  EXPECT_EQ(storedOffset(), R"({"seq":9})");
  stopTask();
}

TEST_F(ExactlyOnceSourceTaskTest, WhilePollWaitsTheCommitterEndsTheTransactionOnTheTasksClock) {
  script->wait_when_done = true;
  start();
  ASSERT_TRUE(awaitPolls(3));
  ASSERT_TRUE(it::waitUntil([&] { return commits() == 1; }, 10s));
  advance(59s, 1);  // the committer (the task's thread waits in poll())
  EXPECT_EQ(commits(), 1u);

  clock.advance(1s);
  ASSERT_TRUE(it::waitUntil([&] { return commits() == 2; }, 10s));
  {
    std::lock_guard lock(script->mutex);
    EXPECT_TRUE(script->waiting) << "the commit came from the task's thread, not the committer";
  }
  EXPECT_EQ(committedRecords(), 10u);
  stopTask();  // wakes the poll()
}

}  // namespace
}  // namespace ksink
