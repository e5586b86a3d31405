// A source task through the public API (makeSourceWorker → Worker) on the embedded broker: what it
// returns reaches the topic, its offsets reach the offsets topic in Connect's bytes once Kafka has
// acknowledged the records they cover, a restarted task resumes from them, and the commit cycle,
// commitRecord(), the stop and the failures behave as Kafka Connect's WorkerSourceTask does (with
// ksink's differences: filtered records' offsets are committed, a blocked poll() is woken).
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "ksink/retriable_error.h"
#include "ksink/source_connector.h"
#include "ksink/source_worker.h"
#include "mock_cluster.h"
#include "polling.h"
#include "status_server.h"
#include "topic_offset_store.h"
#include "topic_reader.h"
#include "worker_runner.h"

namespace ksink {
namespace {

using namespace std::chrono_literals;

// What the test and the tasks it made share (tasks live on the worker's threads).
struct Script {
  std::mutex mutex;
  std::condition_variable changed;
  int64_t limit = 100;      // the sequence stops here (poll() returns nothing after)
  int batch = 10;           // records per poll()
  int retriable_polls = 0;  // the first polls throw RetriableError
  int64_t fail_at = -1;     // poll() throws a fatal error once the sequence reached this
  // The records' timestamp: none, or this for every record but `bad_timestamp_at`'s, which has -5.
  std::optional<int64_t> timestamp;
  int64_t bad_timestamp_at = -1;
  bool block_when_done = false;       // poll() blocks (until wakeup()) once the sequence ended
  bool read_offsets_in_poll = false;  // poll() reads its offset while it holds `mutex`
  std::optional<SourceMap> resumed_from;
  std::vector<std::string> calls;  // "commit", "commitRecord <seq> <kafka offset|none>"
  int commits = 0;
  int wakeups = 0;
  SourceMap partition{{"stream", Value::string("s")}};
};

class SequenceSource final : public SourceTask {
 public:
  explicit SequenceSource(std::shared_ptr<Script> script) : script_(std::move(script)) {}

  void start(const Config& config) override {
    topic_ = config.getString("topic");
    std::lock_guard lock(script_->mutex);
    auto stored = context().offsetStorageReader().offset(partition());
    script_->resumed_from = stored;
    if (stored) next_ = stored->at(0).second.asInt() + 1;
  }

  std::vector<SourceRecord> poll() override {
    std::unique_lock lock(script_->mutex);
    if (script_->retriable_polls > 0) {
      --script_->retriable_polls;
      throw RetriableError("not yet");
    }
    if (script_->fail_at >= 0 && next_ >= script_->fail_at)
      throw std::runtime_error("source broke");
    if (script_->read_offsets_in_poll) {
      // Long enough for the previous records' acknowledgements to arrive while the lock is held.
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      context().offsetStorageReader().offset(partition());
    }
    if (next_ >= script_->limit) {
      if (script_->block_when_done) script_->changed.wait(lock, [&] { return woken_; });
      return {};
    }
    std::vector<SourceRecord> out;
    for (int i = 0; i < script_->batch && next_ < script_->limit; ++i, ++next_)
      out.emplace_back(
          partition(), SourceMap{{"seq", Value::integer(next_)}}, topic_, std::nullopt,
          SchemaAndValue{nullptr, Value::string("k" + std::to_string(next_))},
          SchemaAndValue{nullptr, Value::string(std::to_string(next_))},
          next_ == script_->bad_timestamp_at ? std::optional<int64_t>(-5) : script_->timestamp);
    return out;
  }

  void wakeup() override {
    std::lock_guard lock(script_->mutex);
    woken_ = true;
    ++script_->wakeups;
    script_->changed.notify_all();
  }

  void commit() override {
    std::lock_guard lock(script_->mutex);
    ++script_->commits;
    script_->calls.push_back("commit");
  }

  void commitRecord(const SourceRecord& record,
                    const std::optional<RecordMetadata>& metadata) override {
    std::lock_guard lock(script_->mutex);
    script_->calls.push_back(
        fmt::format("commitRecord {} {}", record.sourceOffset()->at(0).second.asInt(),
                    metadata && metadata->offset ? std::to_string(*metadata->offset) : "none"));
  }

  void stop() override {}

 private:
  SourceMap partition() const { return script_->partition; }

  std::shared_ptr<Script> script_;
  std::string topic_;
  int64_t next_ = 0;
  bool woken_ = false;
};

class WorkerSourceTest : public ::testing::Test {
 protected:
  WorkerSourceTest() {
    cluster.createTopic(topic, 1);
    cluster.createTopic(offsets_topic, 1);
  }

  std::map<std::string, std::string> properties(std::map<std::string, std::string> extra = {}) {
    std::map<std::string, std::string> p{
        {"name", name},
        {"bootstrap.servers", cluster.bootstrap()},
        {"topic", topic},
        {"offset.storage.topic", offsets_topic},
        {"offset.flush.interval.ms", "200"},
        {"offset.flush.timeout.ms", "2000"},
        {"task.shutdown.graceful.timeout.ms", "5000"},
        {"key.converter", "org.apache.kafka.connect.storage.StringConverter"},
        {"value.converter", "org.apache.kafka.connect.storage.StringConverter"},
    };
    for (auto& [k, v] : extra) p.insert_or_assign(k, v);
    return p;
  }

  std::unique_ptr<Worker> worker(std::map<std::string, std::string> extra = {}) {
    ConfigDef def;
    def.define("topic", ConfigDef::Type::kString, std::nullopt, ConfigDef::Importance::kHigh, "");
    return makeSourceWorker(Config(properties(std::move(extra)), def),
                            [s = script] { return std::make_unique<SequenceSource>(s); });
  }

  // The committed offset of the sequence's partition, as bytes, read from the offsets topic.
  std::optional<std::string> storedOffset() {
    TopicOffsetStore store({{"bootstrap.servers", cluster.bootstrap()}}, offsets_topic, 1, 1);
    store.start();
    return store.get(R"([")" + name + R"(",{"stream":"s"}])");
  }

  bool waitForStoredOffset(const std::string& value, std::chrono::milliseconds timeout = 15s) {
    return it::waitUntil([&] { return storedOffset() == value; }, timeout, 200ms);
  }

  std::vector<std::string> values(size_t expected) {
    std::vector<std::string> out;
    for (const auto& r : test::readPartition(cluster.bootstrap(), topic, 0, expected, 10s))
      out.push_back(r.value.value_or("<null>"));
    return out;
  }

  static std::vector<std::string> sequence(int from, int to) {
    std::vector<std::string> out;
    for (int i = from; i < to; ++i) out.push_back(std::to_string(i));
    return out;
  }

  void expectTimestampsKeptAndANegativeOneRefused(std::map<std::string, std::string> extra);

  test::MockCluster cluster;
  const std::string name = test::currentTestName();
  const std::string topic = name + "-data";
  const std::string offsets_topic = name + "-offsets";
  std::shared_ptr<Script> script = std::make_shared<Script>();
};

TEST_F(WorkerSourceTest, ProducesWhatPollReturnsAndStoresTheLastOffsetInConnectsFormat) {
  auto w = worker();
  test::BackgroundRun run([&] { w->run(); });
  EXPECT_TRUE(waitForStoredOffset(R"({"seq":99})")) << storedOffset().value_or("<none>");
  w->stop();
  ASSERT_TRUE(run.waitFinished(10s));
  EXPECT_EQ(run.errorMessage(), "");
  EXPECT_EQ(values(100), sequence(0, 100));
  const auto keys = test::readPartition(cluster.bootstrap(), topic, 0, 1, 5s);
  ASSERT_FALSE(keys.empty());
  EXPECT_EQ(keys[0].key, "k0");
}

TEST_F(WorkerSourceTest, ARestartedTaskResumesAfterTheCommittedOffset) {
  script->limit = 40;
  {
    auto w = worker();
    test::BackgroundRun run([&] { w->run(); });
    ASSERT_TRUE(waitForStoredOffset(R"({"seq":39})"));
    w->stop();
    ASSERT_TRUE(run.waitFinished(10s));
  }
  script->limit = 100;
  auto w = worker();
  test::BackgroundRun run([&] { w->run(); });
  ASSERT_TRUE(waitForStoredOffset(R"({"seq":99})"));
  w->stop();
  ASSERT_TRUE(run.waitFinished(10s));
  {
    std::lock_guard lock(script->mutex);
    ASSERT_TRUE(script->resumed_from);
    EXPECT_EQ(Value::object(*script->resumed_from).toJson(), R"({"seq":39})");
  }
  EXPECT_EQ(values(100), sequence(0, 100)) << "nothing twice, nothing missing";
}

// Worker::restartTask on a source: the task stops (its final offset commit), a new one starts in
// its place in the same run() and resumes from the committed offset.
TEST_F(WorkerSourceTest, ATaskRestartedInPlaceResumesAfterItsCommittedOffset) {
  script->limit = 40;
  auto w = worker();
  test::BackgroundRun run([&] { w->run(); });
  ASSERT_TRUE(waitForStoredOffset(R"({"seq":39})"));
  w->restartTask(0);
  {
    std::lock_guard lock(script->mutex);  // poll() reads it under the lock
    script->limit = 100;                  // only the new task has more to read
  }
  ASSERT_TRUE(waitForStoredOffset(R"({"seq":99})"));
  EXPECT_FALSE(run.finished()) << run.errorMessage();
  w->stop();
  ASSERT_TRUE(run.waitFinished(10s));
  EXPECT_EQ(run.errorMessage(), "");
  {
    std::lock_guard lock(script->mutex);
    ASSERT_TRUE(script->resumed_from);
    EXPECT_EQ(Value::object(*script->resumed_from).toJson(), R"({"seq":39})");
  }
  EXPECT_EQ(values(100), sequence(0, 100)) << "nothing twice, nothing missing";
}

// Worker::pause/resume on a source: a paused task polls nothing (its sequence, given more to read,
// stays where it was), /status shows it PAUSED, and after resume() it goes on where it was.
TEST_F(WorkerSourceTest, APausedConnectorPollsNothingAndGoesOnAfterResume) {
  script->limit = 40;
  auto w = worker();
  test::BackgroundRun run([&] { w->run(); });
  ASSERT_TRUE(waitForStoredOffset(R"({"seq":39})"));
  w->pause();
  ASSERT_EQ(w->status().tasks.size(), 1u);
  EXPECT_EQ(w->status().tasks[0].state, "PAUSED");
  {
    std::lock_guard lock(script->mutex);
    script->limit = 100;
  }
  // Bounded: what a paused task must not do within a second and a half (offsets commit every
  // 200 ms here).
  EXPECT_FALSE(waitForStoredOffset(R"({"seq":49})", 1500ms)) << "a paused task polled";
  w->resume();
  ASSERT_TRUE(waitForStoredOffset(R"({"seq":99})"));
  EXPECT_EQ(w->status().tasks[0].state, "RUNNING");
  w->stop();
  ASSERT_TRUE(run.waitFinished(10s));
  EXPECT_EQ(run.errorMessage(), "");
  EXPECT_EQ(values(100), sequence(0, 100)) << "nothing twice, nothing missing";
}

// Exactly once with a long transaction.boundary.interval.ms: a pause commits what was sent at
// once (a paused task polls nothing, so no boundary would come for a minute; meanwhile every
// read_committed consumer would wait on the open transaction).
TEST_F(WorkerSourceTest, ExactlyOnceAPauseCommitsTheOpenTransaction) {
  script->limit = 40;
  auto w = worker({{"exactly.once.source.support", "enabled"},
                   {"transaction.boundary", "interval"},
                   {"transaction.boundary.interval.ms", "60000"}});
  test::BackgroundRun run([&] { w->run(); });
  ASSERT_TRUE(waitForStoredOffset(R"({"seq":9})")) << storedOffset().value_or("<none>");
  w->pause();
  EXPECT_TRUE(waitForStoredOffset(R"({"seq":39})", 10s)) << storedOffset().value_or("<none>");
  w->resume();
  w->stop();
  ASSERT_TRUE(run.waitFinished(10s));
  EXPECT_EQ(run.errorMessage(), "");
  EXPECT_EQ(values(40), sequence(0, 40)) << "read_committed: every record once, in order";
}

TEST_F(WorkerSourceTest, TheOffsetsOfFilteredRecordsAreCommittedToo) {
  // Every record dropped: Connect would never commit an offset (KAFKA-15296).
  auto w = worker({{"transforms", "drop"},
                   {"transforms.drop.type", "org.apache.kafka.connect.transforms.Filter"}});
  test::BackgroundRun run([&] { w->run(); });
  EXPECT_TRUE(waitForStoredOffset(R"({"seq":99})")) << storedOffset().value_or("<none>");
  w->stop();
  ASSERT_TRUE(run.waitFinished(10s));
  EXPECT_TRUE(test::readPartition(cluster.bootstrap(), topic, 0, 1, 2s).empty());
  std::lock_guard lock(script->mutex);
  EXPECT_EQ(script->calls[0], "commitRecord 0 none") << "a dropped record has no metadata";
}

TEST_F(WorkerSourceTest, CommitRecordFollowsEachAcknowledgementInOrderAndCommitFollowsAFlush) {
  script->limit = 20;
  auto w = worker();
  test::BackgroundRun run([&] { w->run(); });
  ASSERT_TRUE(waitForStoredOffset(R"({"seq":19})"));
  // While the task runs (not the final commit at stop): a commit() follows the periodic flush
  // that stored the last record's offset, so it comes after that record's commitRecord().
  const bool committed_after_last = it::waitUntil(
      [&] {
        std::lock_guard lock(script->mutex);
        const auto last =
            std::find(script->calls.begin(), script->calls.end(), "commitRecord 19 19");
        return last != script->calls.end() &&
               std::find(last, script->calls.end(), "commit") != script->calls.end();
      },
      5s);
  w->stop();
  ASSERT_TRUE(run.waitFinished(10s));
  EXPECT_TRUE(committed_after_last);
  std::lock_guard lock(script->mutex);
  std::vector<std::string> records;
  for (const auto& c : script->calls)
    if (c.starts_with("commitRecord")) records.push_back(c);
  ASSERT_EQ(records.size(), 20u);
  for (int i = 0; i < 20; ++i)
    EXPECT_EQ(records[i], fmt::format("commitRecord {} {}", i, i)) << "Kafka offset = sequence";
}

TEST_F(WorkerSourceTest, AStopWakesAPollThatBlocksUntilWokenAndStillCommits) {
  script->limit = 10;
  script->block_when_done = true;
  auto w = worker();
  test::BackgroundRun run([&] { w->run(); });
  ASSERT_TRUE(waitForStoredOffset(R"({"seq":9})"));
  const auto start = std::chrono::steady_clock::now();
  w->stop();
  ASSERT_TRUE(run.waitFinished(10s));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 4s) << "well within the graceful timeout";
  EXPECT_EQ(run.errorMessage(), "");
  std::lock_guard lock(script->mutex);
  EXPECT_GE(script->wakeups, 1);
}

TEST_F(WorkerSourceTest, ARetriableErrorFromPollIsRetried) {
  script->retriable_polls = 3;
  script->limit = 10;
  auto w = worker();
  test::BackgroundRun run([&] { w->run(); });
  EXPECT_TRUE(waitForStoredOffset(R"({"seq":9})"));
  w->stop();
  ASSERT_TRUE(run.waitFinished(10s));
  EXPECT_EQ(run.errorMessage(), "");
  EXPECT_EQ(values(10), sequence(0, 10));
}

TEST_F(WorkerSourceTest, AFailedTaskStillCommitsWhatKafkaAcknowledged) {
  script->fail_at = 30;
  script->batch = 5;
  auto w = worker({{"offset.flush.interval.ms", "600000"}});  // only the final commit
  test::BackgroundRun run([&] { w->run(); });
  ASSERT_TRUE(run.waitFinished(15s));
  EXPECT_NE(run.errorMessage().find("source broke"), std::string::npos) << run.errorMessage();
  EXPECT_EQ(storedOffset(), R"({"seq":29})");
  EXPECT_EQ(values(30), sequence(0, 30));
}

// Connect's checkAndConvertTimestamp, with and without a transform (a record is converted straight
// when there is none): a timestamp is kept, another negative one than -1 fails the task after the
// records before it.
void WorkerSourceTest::expectTimestampsKeptAndANegativeOneRefused(
    std::map<std::string, std::string> extra) {
  script->batch = 5;
  script->timestamp = 1700000000123;
  script->bad_timestamp_at = 12;
  extra["offset.flush.interval.ms"] = "600000";  // only the final commit
  auto w = worker(extra);
  test::BackgroundRun run([&] { w->run(); });
  if (!run.waitFinished(15s)) {
    w->stop();
    ASSERT_TRUE(run.waitFinished(15s));
    FAIL() << "the task did not fail at the record with timestamp -5";
  }
  EXPECT_NE(run.errorMessage().find("invalid record timestamp -5"), std::string::npos)
      << run.errorMessage();
  const auto records = test::readPartition(cluster.bootstrap(), topic, 0, 10, 10s);
  ASSERT_EQ(records.size(), 10u);  // the two batches before the bad record's
  for (const auto& r : records) EXPECT_EQ(r.timestamp, 1700000000123);
  EXPECT_EQ(storedOffset(), R"({"seq":9})");
}

TEST_F(WorkerSourceTest, TimestampsAreKeptAndANegativeOneFailsTheTask) {
  expectTimestampsKeptAndANegativeOneRefused({});
}

TEST_F(WorkerSourceTest, TimestampsAreKeptAndANegativeOneFailsTheTaskBehindATransformToo) {
  expectTimestampsKeptAndANegativeOneRefused(
      {{"transforms", "route"},
       {"transforms.route.type", "org.apache.kafka.connect.transforms.RegexRouter"},
       {"transforms.route.regex", "no-such-topic"},
       {"transforms.route.replacement", "elsewhere"}});
}

// As in Connect, the timestamp check is not a conversion error that errors.tolerance=all skips.
TEST_F(WorkerSourceTest, ANegativeTimestampFailsTheTaskUnderErrorsToleranceAllToo) {
  expectTimestampsKeptAndANegativeOneRefused({{"errors.tolerance", "all"}});
}

TEST_F(WorkerSourceTest, ATimestampOfMinusOneIsNoneAndTheProducerStampsTheRecord) {
  script->limit = 3;
  script->timestamp = -1;
  const auto before = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  auto w = worker();
  test::BackgroundRun run([&] { w->run(); });
  const auto records = test::readPartition(cluster.bootstrap(), topic, 0, 3, 10s);
  w->stop();
  ASSERT_TRUE(run.waitFinished(10s));
  EXPECT_EQ(run.errorMessage(), "");
  ASSERT_EQ(records.size(), 3u);
  for (const auto& r : records) EXPECT_GE(r.timestamp, before - 1000);
}

TEST_F(WorkerSourceTest, StatusShowsASourceConnectorAndItsCounters) {
  script->limit = 50;
  auto w = worker();
  test::BackgroundRun run([&] { w->run(); });
  ASSERT_TRUE(waitForStoredOffset(R"({"seq":49})"));
  ASSERT_TRUE(it::waitUntil(
      [&] {
        // The status is a snapshot the service thread refreshes: wait for the commit too.
        const auto s = w->status();
        return s.tasks.size() == 1 && s.tasks[0].counters.source &&
               s.tasks[0].counters.source->source_record_write_total == 50 &&
               s.tasks[0].counters.commits.offset_commit_completion_total >= 1;
      },
      5s));
  const auto status = w->status();
  EXPECT_EQ(status.type, "source");
  EXPECT_EQ(status.tasks[0].state, "RUNNING");
  EXPECT_EQ(status.tasks[0].counters.source->source_record_poll_total, 50u);
  EXPECT_EQ(status.tasks[0].counters.source->source_record_active_count, 0);
  EXPECT_GE(status.tasks[0].counters.commits.offset_commit_completion_total, 1u);
  const auto metrics = renderPrometheus({status});
  EXPECT_NE(metrics.find(fmt::format("kafka_connect_source_task_metrics_source_record_write_total{{"
                                     "connector=\"{}\",task=\"0\"}} 50",
                                     name)),
            std::string::npos)
      << metrics;
  EXPECT_EQ(metrics.find("kafka_connect_sink_task_metrics_sink_record_read_total{"),
            std::string::npos)
      << "no sink metrics for a source";
  w->stop();
  ASSERT_TRUE(run.waitFinished(10s));
}

// The exactly-once task (KIP-618) on the embedded broker, which serves transactions: records and
// offsets committed in transactions (read_committed sees every record once), the same calls to
// the task, and its transaction counters.
TEST_F(WorkerSourceTest, ExactlyOnceTheRecordsAndTheirOffsetsAreCommittedInTransactions) {
  script->limit = 30;
  auto w = worker({{"exactly.once.source.support", "enabled"}, {"transaction.boundary", "poll"}});
  test::BackgroundRun run([&] { w->run(); });
  ASSERT_TRUE(waitForStoredOffset(R"({"seq":29})")) << storedOffset().value_or("<none>");
  ASSERT_TRUE(it::waitUntil(
      [&] {
        const auto s = w->status();
        return s.tasks.size() == 1 && s.tasks[0].counters.source &&
               s.tasks[0].counters.source->transaction_commit_total >= 3;
      },
      5s));
  w->stop();
  ASSERT_TRUE(run.waitFinished(10s));
  EXPECT_EQ(run.errorMessage(), "");
  EXPECT_EQ(values(30), sequence(0, 30)) << "read_committed: every record once, in order";
  EXPECT_EQ(w->status().tasks[0].counters.source->transaction_abort_total, 0u);
  std::lock_guard lock(script->mutex);
  ASSERT_GE(script->calls.size(), 30u);
  EXPECT_EQ(script->calls.front(), "commitRecord 0 0");
}

TEST_F(WorkerSourceTest, APartitionThatDiffersFromAStoredOneOnlyInKeyOrderOrNumberTypeIsReported) {
  // Stored as an earlier version built it: the keys in another order, the shard a double.
  {
    TopicOffsetStore store({{"bootstrap.servers", cluster.bootstrap()}}, offsets_topic, 1, 1);
    store.start();
    std::optional<std::optional<std::string>> done;
    store.write({{R"([")" + name + R"(",{"stream":"s","shard":1.0}])", R"({"seq":49})"}},
                [&](const auto& error) { done = error; });
    while (!done) store.poll(100ms);
    ASSERT_EQ(*done, std::nullopt);
  }
  script->partition = {{"shard", Value::integer(1)}, {"stream", Value::string("s")}};
  script->limit = 10;
  auto w = worker();
  test::BackgroundRun run([&] { w->run(); });
  ASSERT_TRUE(it::waitUntil(
      [&] {
        const auto s = w->status();
        return !s.tasks.empty() && s.tasks[0].counters.source &&
               s.tasks[0].counters.source->source_record_write_total == 10;
      },
      10s));
  const auto status = w->status();
  EXPECT_EQ(status.tasks[0].counters.source->source_partition_key_mismatches, 1u)
      << "once per partition";
  EXPECT_NE(
      renderPrometheus({status}).find(fmt::format(
          "ksink_source_partition_key_mismatches_total{{connector=\"{}\",task=\"0\"}} 1", name)),
      std::string::npos);
  w->stop();
  ASSERT_TRUE(run.waitFinished(10s));
  std::lock_guard lock(script->mutex);
  EXPECT_FALSE(script->resumed_from) << "the stored offset is another partition's bytes";
}

// The task's lock is held in poll() while it reads offsets, and taken in commitRecord(): the
// worker must not call commitRecord() while it holds the lock the offset reads need.
TEST_F(WorkerSourceTest, ATaskGuardingItsStateWithALockOfItsOwnDoesNotDeadlockWithTheWorker) {
  script->read_offsets_in_poll = true;
  script->limit = 500;
  script->batch = 10;
  auto w = worker();
  test::BackgroundRun run([&] { w->run(); });
  EXPECT_TRUE(waitForStoredOffset(R"({"seq":499})", 30s)) << storedOffset().value_or("<none>");
  w->stop();
  ASSERT_TRUE(run.waitFinished(10s));
  EXPECT_EQ(run.errorMessage(), "");
}

TEST_F(WorkerSourceTest, ABadSourceConfigurationIsRefusedNamingTheKey) {
  try {
    worker({{"errors.deadletterqueue.topic.name", "dlq"}, {"producer.override.acks", "sometimes"}});
    FAIL() << "accepted";
  } catch (const ConfigException& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("errors.deadletterqueue.topic.name"), std::string::npos) << what;
    EXPECT_NE(what.find("producer.override.acks"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace ksink
