// Exactly-once source tasks (KIP-618) in-process against the real broker: a task's records and its
// source offsets are committed in one transaction, read back with isolation.level=read_committed;
// the boundaries poll, interval and connector (with aborted transactions, after Connect's
// ExactlyOnceSourceIntegrationTest.testConnectorBoundary); a restart resumes right after the last
// committed transaction; a replaced task (a zombie) cannot commit; a task may not write to its own
// offsets topic.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "ksink/config_exception.h"
#include "ksink/source_connector.h"
#include "ksink/source_worker.h"
#include "polling.h"
#include "support/topic_reader.h"
#include "support/worker_runner.h"
#include "test_kafka.h"
#include "topic_offset_store.h"

namespace ksink::it {
namespace {

using namespace std::chrono_literals;

// What the test and the task share.
struct Script {
  std::mutex mutex;
  std::condition_variable changed;
  int64_t limit = 100;
  int batch = 10;
  // Connector-defined boundaries: transactions of these sizes, in turn; those at odd positions
  // (the 2nd, 4th, …) aborted. Empty: none asked.
  std::vector<int> transactions;
  bool batch_commit = false;  // commitTransaction() (the batch's) after every poll()
  int64_t pause_at = -1;      // poll() waits, once the sequence reached it, until released
  bool released = false;
  bool paused = false;
  std::string produce_to;  // records go here instead of the topic
  std::optional<SourceMap> resumed_from;
  std::vector<std::string> calls;  // "commit", "commitRecord <seq> <kafka offset|none>"
  // poll() takes this long before it returns its batch.
  std::chrono::milliseconds poll_time{0};
  // commitRecord() reads the task's own offset through its OffsetStorageReader (as a task may);
  // the call for the record of sequence number wait_at first releases a paused poll() and waits
  // this long.
  bool read_offsets_in_commit_record = false;
  int64_t wait_at = -1;
  std::chrono::milliseconds wait{0};
  int offset_reads = 0;
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
    std::this_thread::sleep_for(script_->poll_time);
    std::unique_lock lock(script_->mutex);
    if (script_->pause_at >= 0 && next_ >= script_->pause_at && !script_->released) {
      script_->paused = true;
      script_->changed.notify_all();
      script_->changed.wait(lock, [&] { return script_->released || woken_; });
    }
    std::vector<SourceRecord> out;
    for (int i = 0; i < script_->batch && next_ < script_->limit; ++i, ++next_) {
      out.emplace_back(partition(), SourceMap{{"seq", Value::integer(next_)}},
                       script_->produce_to.empty() ? topic_ : script_->produce_to, 0,
                       SchemaAndValue{nullptr, Value::string("k")},
                       SchemaAndValue{nullptr, Value::string(std::to_string(next_))});
      askForBoundary(out.back());
    }
    if (script_->batch_commit && !out.empty()) context().transactionContext()->commitTransaction();
    if (out.empty()) {
      lock.unlock();
      std::this_thread::sleep_for(10ms);
    }
    return out;
  }

  void wakeup() override {
    std::lock_guard lock(script_->mutex);
    woken_ = true;
    script_->changed.notify_all();
  }

  void commit() override {
    std::lock_guard lock(script_->mutex);
    script_->calls.push_back("commit");
  }

  void commitRecord(const SourceRecord& record,
                    const std::optional<RecordMetadata>& metadata) override {
    if (script_->read_offsets_in_commit_record) {
      if (record.sourceOffset()->at(0).second.asInt() == script_->wait_at) {
        {
          std::lock_guard lock(script_->mutex);
          script_->released = true;
          script_->changed.notify_all();
        }
        std::this_thread::sleep_for(script_->wait);
      }
      context().offsetStorageReader().offset(partition());
      std::lock_guard lock(script_->mutex);
      ++script_->offset_reads;
    }
    std::lock_guard lock(script_->mutex);
    script_->calls.push_back(
        fmt::format("commitRecord {} {}", record.sourceOffset()->at(0).second.asInt(),
                    metadata && metadata->offset ? std::to_string(*metadata->offset) : "none"));
  }

  void stop() override {}

 private:
  static SourceMap partition() { return SourceMap{{"task", Value::integer(0)}}; }

  // With script_->mutex held: ends a transaction after `record` when its size is reached.
  void askForBoundary(const SourceRecord& record) {
    if (next_transaction_ >= script_->transactions.size()) return;
    if (++in_transaction_ < script_->transactions[next_transaction_]) return;
    auto* context = this->context().transactionContext();
    if (next_transaction_ % 2 == 1)
      context->abortTransaction(record);
    else
      context->commitTransaction(record);
    ++next_transaction_;
    in_transaction_ = 0;
  }

  std::shared_ptr<Script> script_;
  std::string topic_;
  int64_t next_ = 0;
  bool woken_ = false;
  size_t next_transaction_ = 0;
  int in_transaction_ = 0;
};

class ExactlyOnceSourceTest : public ::testing::Test {
 protected:
  ExactlyOnceSourceTest() { RealKafka::shared().createTopic(topic, 1); }

  std::map<std::string, std::string> properties(std::map<std::string, std::string> extra = {}) {
    std::map<std::string, std::string> p{
        {"name", name},
        {"bootstrap.servers", RealKafka::shared().bootstrap()},
        {"topic", topic},
        {"exactly.once.source.support", "enabled"},
        {"offset.storage.topic", offsets_topic},
        {"offset.storage.partitions", "3"},
        {"offset.storage.replication.factor", "1"},
        {"offset.flush.interval.ms", "500"},
        {"task.shutdown.graceful.timeout.ms", "10000"},
        {"key.converter", "org.apache.kafka.connect.storage.StringConverter"},
        {"value.converter", "org.apache.kafka.connect.storage.StringConverter"},
    };
    for (auto& [k, v] : extra) p.insert_or_assign(k, v);
    return p;
  }

  std::unique_ptr<Worker> worker(std::map<std::string, std::string> extra = {},
                                 std::shared_ptr<Script> s = nullptr) {
    ConfigDef def;
    def.define("topic", ConfigDef::Type::kString, std::nullopt, ConfigDef::Importance::kHigh, "");
    SourceCapabilities capabilities{
        [](const Config&) { return ExactlyOnceSupport::kSupported; },
        [](const Config&) { return ConnectorTransactionBoundaries::kSupported; }};
    return makeSourceWorker(
        Config(properties(std::move(extra)), def),
        [s = s ? s : script] { return std::make_unique<SequenceSource>(s); }, capabilities);
  }

  std::optional<std::string> storedOffset() {
    TopicOffsetStore store({{"bootstrap.servers", RealKafka::shared().bootstrap()}}, offsets_topic,
                           3, 1);
    store.start();
    return store.get(R"([")" + name + R"(",{"task":0}])");
  }

  // What a read_committed consumer sees of the topic.
  std::vector<std::string> committedValues() {
    std::vector<std::string> out;
    for (const auto& r :
         test::readCommitted(RealKafka::shared().bootstrap(), topic, 0, std::chrono::seconds(30)))
      out.push_back(r.value.value_or("<null>"));
    return out;
  }

  static std::vector<std::string> sequence(int from, int to) {
    std::vector<std::string> out;
    for (int i = from; i < to; ++i) out.push_back(std::to_string(i));
    return out;
  }

  std::vector<std::string> calls() {
    std::lock_guard lock(script->mutex);
    return script->calls;
  }

  const std::string name = uniqueName("eos");
  const std::string topic = name + "-data";
  const std::string offsets_topic = name + "-offsets";
  std::shared_ptr<Script> script = std::make_shared<Script>();
};

TEST_F(ExactlyOnceSourceTest, RecordsAndTheirOffsetsAreCommittedTogetherAfterEachPoll) {
  script->limit = 200;
  script->batch = 20;
  auto w = worker();
  test::BackgroundRun run([&] { w->run(); });
  ASSERT_TRUE(waitUntil([&] { return storedOffset() == R"({"seq":199})"; }, 30s, 200ms))
      << storedOffset().value_or("<none>");
  w->stop();
  ASSERT_TRUE(run.waitFinished(20s));
  EXPECT_EQ(run.errorMessage(), "");
  EXPECT_EQ(committedValues(), sequence(0, 200));
  // Each transaction ends with a commit marker: ten batches, ten markers (at least) past the
  // records.
  EXPECT_GE(RealKafka::shared().endOffset({topic, 0}), 210);
  // commitRecord() for a transaction's records only after it committed, then commit(): the calls
  // come in blocks of a batch's records and a commit.
  const auto seen = calls();
  ASSERT_GE(seen.size(), 210u);
  int64_t expected = 0;
  size_t since_commit = 0;
  for (const auto& call : seen) {
    if (call == "commit") {
      EXPECT_EQ(since_commit, 20u) << "a commit() after a whole batch's commitRecord()s";
      since_commit = 0;
      continue;
    }
    EXPECT_TRUE(call.starts_with(fmt::format("commitRecord {} ", expected))) << call;
    EXPECT_FALSE(call.ends_with(" none")) << call << ": a committed record has its metadata";
    ++expected;
    ++since_commit;
  }
  EXPECT_EQ(expected, 200);
}

TEST_F(ExactlyOnceSourceTest, ARestartResumesRightAfterTheLastCommittedTransaction) {
  script->limit = 120;
  {
    auto w = worker();
    test::BackgroundRun run([&] { w->run(); });
    ASSERT_TRUE(waitUntil([&] { return storedOffset() == R"({"seq":119})"; }, 30s, 200ms));
    w->stop();
    ASSERT_TRUE(run.waitFinished(20s));
  }
  script->limit = 300;
  auto w = worker();
  test::BackgroundRun run([&] { w->run(); });
  ASSERT_TRUE(waitUntil([&] { return storedOffset() == R"({"seq":299})"; }, 30s, 200ms));
  w->stop();
  ASSERT_TRUE(run.waitFinished(20s));
  {
    std::lock_guard lock(script->mutex);
    ASSERT_TRUE(script->resumed_from);
    EXPECT_EQ(Value::object(*script->resumed_from).toJson(), R"({"seq":119})");
  }
  EXPECT_EQ(committedValues(), sequence(0, 300)) << "nothing twice, nothing missing";
}

TEST_F(ExactlyOnceSourceTest, ConnectorBoundariesCommitWhereAskedAndAbortedRecordsStayInvisible) {
  // Transactions of Fibonacci sizes (as Connect's testConnectorBoundary), every second one
  // aborted, crossing the batches of 7.
  script->transactions = {1, 1, 2, 3, 5, 8, 13, 21, 34, 55};
  script->limit = 143;  // their sum
  script->batch = 7;
  auto w = worker({{"transaction.boundary", "connector"}});
  test::BackgroundRun run([&] { w->run(); });
  // The aborted transactions' offsets are committed all the same (alone), so the task does not
  // read their records again: the last offset is the last record's, though it was aborted.
  ASSERT_TRUE(waitUntil([&] { return storedOffset() == R"({"seq":142})"; }, 30s, 200ms))
      << storedOffset().value_or("<none>");
  w->stop();
  ASSERT_TRUE(run.waitFinished(20s));
  EXPECT_EQ(run.errorMessage(), "");
  std::vector<std::string> expected;
  std::set<int> aborted;
  int at = 0;
  for (size_t t = 0; t < script->transactions.size(); ++t)
    for (int i = 0; i < script->transactions[t]; ++i, ++at) {
      if (t % 2 == 0)
        expected.push_back(std::to_string(at));
      else
        aborted.insert(at);
    }
  EXPECT_EQ(committedValues(), expected);
  // But Kafka holds them: a read_uncommitted reader would see all 143.
  EXPECT_GE(RealKafka::shared().endOffset({topic, 0}), 143 + 10);
  int commits = 0;
  for (const auto& call : calls()) {
    if (call == "commit") {
      ++commits;
      continue;
    }
    int seq = 0;
    char kafka_offset[32] = {};
    ASSERT_EQ(std::sscanf(call.c_str(), "commitRecord %d %31s", &seq, kafka_offset), 2) << call;
    EXPECT_EQ(aborted.contains(seq), std::string(kafka_offset) == "none") << call;
  }
  EXPECT_EQ(commits, 10) << "one commit() per transaction, aborted ones' offsets included";
}

TEST_F(ExactlyOnceSourceTest, ABatchLevelRequestCommitsWhatTheBatchAndTheOnesBeforeSent) {
  script->limit = 50;
  script->batch = 10;
  script->batch_commit = true;
  auto w = worker({{"transaction.boundary", "connector"}});
  test::BackgroundRun run([&] { w->run(); });
  ASSERT_TRUE(waitUntil([&] { return storedOffset() == R"({"seq":49})"; }, 30s, 200ms));
  w->stop();
  ASSERT_TRUE(run.waitFinished(20s));
  EXPECT_EQ(committedValues(), sequence(0, 50));
  const auto seen = calls();
  EXPECT_EQ(std::count(seen.begin(), seen.end(), "commit"), 5);
}

TEST_F(ExactlyOnceSourceTest, IntervalBoundariesCommitLessOftenThanEveryPoll) {
  script->limit = 400;
  script->batch = 2;
  auto w =
      worker({{"transaction.boundary", "interval"}, {"transaction.boundary.interval.ms", "300"}});
  test::BackgroundRun run([&] { w->run(); });
  ASSERT_TRUE(waitUntil([&] { return storedOffset() == R"({"seq":399})"; }, 30s, 200ms));
  w->stop();
  ASSERT_TRUE(run.waitFinished(20s));
  const auto status = w->status();  // as the stopped task last published it
  EXPECT_EQ(committedValues(), sequence(0, 400));
  ASSERT_EQ(status.tasks.size(), 1u);
  ASSERT_TRUE(status.tasks[0].counters.source);
  EXPECT_GE(status.tasks[0].counters.source->poll_batch_count, 200u);
  EXPECT_LT(status.tasks[0].counters.source->transaction_commit_total, 100u)
      << "200 batches, far fewer transactions";
  EXPECT_GE(status.tasks[0].counters.source->transaction_commit_total, 1u);
}

TEST_F(ExactlyOnceSourceTest, AnIntervalTransactionCommitsWhilePollWaitsForData) {
  // All 50 records are sent, then poll() waits (a quiet source): the open transaction commits
  // once its interval passed, not when poll() returns.
  script->limit = 50;
  script->pause_at = 50;
  auto w =
      worker({{"transaction.boundary", "interval"}, {"transaction.boundary.interval.ms", "300"}});
  test::BackgroundRun run([&] { w->run(); });
  ASSERT_TRUE(waitUntil([&] { return storedOffset() == R"({"seq":49})"; }, 10s, 100ms))
      << storedOffset().value_or("<none>");
  {
    std::lock_guard lock(script->mutex);
    EXPECT_TRUE(script->paused && !script->released) << "poll() was still waiting";
  }
  EXPECT_EQ(committedValues(), sequence(0, 50));
  const auto seen = calls();
  EXPECT_EQ(std::count_if(seen.begin(), seen.end(),
                          [](const std::string& c) { return c.starts_with("commitRecord"); }),
            50)
      << "commitRecord() for every record, from the committing thread";
  w->stop();
  ASSERT_TRUE(run.waitFinished(20s));
  EXPECT_EQ(run.errorMessage(), "");
}

// Issue 36, item 8: with interval boundaries the committer thread makes a transaction's
// commitRecord() calls while the task thread may end the next transaction; a task that reads its
// OffsetStorageReader in commitRecord() (the worker's lock) must not deadlock the two. After the
// second batch poll() waits until the committer ends its transaction; that commit's first
// commitRecord() lets poll() go on and takes longer than an interval, so the task thread ends the
// next transaction while the committer's calls are still being made.
TEST_F(ExactlyOnceSourceTest, ATaskReadingItsOffsetsInCommitRecordKeepsIntervalCommitsGoing) {
  script->limit = 50;
  script->batch = 5;
  script->pause_at = 10;
  script->poll_time = 20ms;
  script->read_offsets_in_commit_record = true;
  script->wait_at = 5;
  script->wait = 800ms;
  auto w =
      worker({{"transaction.boundary", "interval"}, {"transaction.boundary.interval.ms", "200"}});
  test::BackgroundRun run([&] { w->run(); });
  ASSERT_TRUE(waitUntil([&] { return storedOffset() == R"({"seq":49})"; }, 20s, 200ms))
      << "stuck at " << storedOffset().value_or("<none>");
  w->stop();
  ASSERT_TRUE(run.waitFinished(20s));
  EXPECT_EQ(run.errorMessage(), "");
  EXPECT_EQ(committedValues(), sequence(0, 50));
  std::lock_guard lock(script->mutex);
  EXPECT_EQ(script->offset_reads, 50);
}

TEST_F(ExactlyOnceSourceTest, AReplacedTaskIsFencedAndCannotCommitWhatItSentAfterwards) {
  // The zombie: its first transaction ends with its first batch (10 records: whether the task
  // needs commitRecord() is not known before), its second, of 20, is open (a long interval) when
  // it stops in poll(), as a paused or cut-off process would.
  script->limit = 100;
  script->pause_at = 30;
  auto zombie = worker(
      {{"transaction.boundary", "interval"}, {"transaction.boundary.interval.ms", "600000"}});
  test::BackgroundRun zombie_run([&] { zombie->run(); });
  ASSERT_TRUE(waitUntil(
      [&] {
        std::lock_guard lock(script->mutex);
        return script->paused;
      },
      30s));
  // Its replacement (the same connector and task: the same transactional.id) fences it, aborts
  // its open transaction, and produces everything after the zombie's committed first batch.
  auto replacement_script = std::make_shared<Script>();
  replacement_script->limit = 100;
  auto replacement = worker({}, replacement_script);
  test::BackgroundRun replacement_run([&] { replacement->run(); });
  ASSERT_TRUE(waitUntil([&] { return storedOffset() == R"({"seq":99})"; }, 30s, 200ms));
  // The zombie wakes, sends the rest and tries to commit: refused.
  {
    std::lock_guard lock(script->mutex);
    script->released = true;
    script->changed.notify_all();
  }
  ASSERT_TRUE(zombie_run.waitFinished(30s));
  EXPECT_NE(zombie_run.errorMessage().find("fenced"), std::string::npos)
      << zombie_run.errorMessage();
  replacement->stop();
  ASSERT_TRUE(replacement_run.waitFinished(20s));
  EXPECT_EQ(replacement_run.errorMessage(), "");
  EXPECT_EQ(committedValues(), sequence(0, 100)) << "the zombie's records never show";
  EXPECT_EQ(storedOffset(), R"({"seq":99})");
  {
    std::lock_guard lock(replacement_script->mutex);
    ASSERT_TRUE(replacement_script->resumed_from);
    EXPECT_EQ(Value::object(*replacement_script->resumed_from).toJson(), R"({"seq":9})");
  }
  const auto zombie_calls = calls();
  EXPECT_EQ(std::count(zombie_calls.begin(), zombie_calls.end(), "commit"), 1)
      << "the zombie's task hears of its first transaction only";
}

// Issue 36, item 16: an offsets topic made by hand that deletes by age (cleanup.policy=delete)
// would lose the offsets when its retention passed, and the source would start over: refused at
// start, in either mode, as Connect refuses it; nothing produced.
TEST_F(ExactlyOnceSourceTest, AnOffsetsTopicThatIsNotCompactedIsRefused) {
  RealKafka::shared().createTopic(offsets_topic, 1, {{"cleanup.policy", "delete"}});
  for (const auto* mode : {"enabled", "disabled"}) {
    SCOPED_TRACE(mode);
    auto w = worker({{"exactly.once.source.support", mode}});
    test::BackgroundRun run([&] { w->run(); });
    ASSERT_TRUE(run.waitFinished(30s));
    EXPECT_NE(run.errorMessage().find("has cleanup.policy=delete: it must be compact"),
              std::string::npos)
        << run.errorMessage();
    EXPECT_NE(run.errorMessage().find("offset.storage.topic"), std::string::npos);
  }
  EXPECT_EQ(RealKafka::shared().endOffset({topic, 0}), 0);
}

TEST_F(ExactlyOnceSourceTest, ATaskMayNotWriteToItsOwnOffsetsTopic) {
  script->produce_to = offsets_topic;
  auto w = worker();
  test::BackgroundRun run([&] { w->run(); });
  ASSERT_TRUE(run.waitFinished(30s));
  EXPECT_NE(run.errorMessage().find("may not produce to their own offsets topics"),
            std::string::npos)
      << run.errorMessage();
  EXPECT_EQ(storedOffset(), std::nullopt);
}

TEST_F(ExactlyOnceSourceTest, RequiredIsRefusedForAConnectorThatDoesNotSaySo) {
  ConfigDef def;
  def.define("topic", ConfigDef::Type::kString, std::nullopt, ConfigDef::Importance::kHigh, "");
  try {
    makeSourceWorker(Config(properties({{"exactly.once.support", "required"}}), def),
                     [s = script] { return std::make_unique<SequenceSource>(s); });
    FAIL() << "started";
  } catch (const ConfigException& e) {
    EXPECT_NE(std::string(e.what()).find("exactly.once.support"), std::string::npos) << e.what();
  }
  try {
    makeSourceWorker(Config(properties({{"transaction.boundary", "connector"}}), def),
                     [s = script] { return std::make_unique<SequenceSource>(s); });
    FAIL() << "started";
  } catch (const ConfigException& e) {
    EXPECT_NE(std::string(e.what()).find("transaction.boundary"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ksink::it
