// The worker in-process against a real Kafka broker: what the group coordinator really stores,
// and what the dead-letter queue holds (scenarios 34-38 of the Connect sink acceptance scenarios,
// whose embedded-broker versions are tests/sdk/worker_errors_dlq_test.cpp and
// conversion_retry_test.cpp).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "flaky_converter.h"
#include "ksink/ksink.h"
#include "ksink/record_mapper.h"
#include "polling.h"
#include "support/topic_reader.h"
#include "support/worker_runner.h"
#include "test_kafka.h"

namespace ksink::it {
namespace {

using namespace std::chrono_literals;

// Everything a CollectingSink saw, shared with the test thread.
struct Seen {
  std::mutex mutex;
  std::map<TopicPartition, std::vector<int64_t>> offsets;  // put() order per partition
  size_t total = 0;
  std::function<OffsetMap(const OffsetMap&)> pre_commit;  // nullptr: return what was delivered
  bool reporter_missing = false;  // a MappingSink found errantRecordReporter() null

  size_t count() {
    std::lock_guard lock(mutex);
    return total;
  }
  std::vector<int64_t> offsetsOf(const TopicPartition& tp) {
    std::lock_guard lock(mutex);
    return offsets[tp];
  }
};

class CollectingSink : public SinkTask {
 public:
  explicit CollectingSink(std::shared_ptr<Seen> seen) : seen_(std::move(seen)) {}
  void start(const Config&) override {}
  void put(std::span<const SinkRecord> records) override {
    std::lock_guard lock(seen_->mutex);
    for (const auto& r : records) {
      seen_->offsets[r.topicPartition()].push_back(r.offset());
      ++seen_->total;
    }
  }
  OffsetMap preCommit(const OffsetMap& current) override {
    std::lock_guard lock(seen_->mutex);
    return seen_->pre_commit ? seen_->pre_commit(current) : current;
  }
  void stop() override {}

 private:
  std::shared_ptr<Seen> seen_;
};

// Runs a Worker on its own thread; the destructor stops it.
class RunningWorker {
 public:
  RunningWorker(std::map<std::string, std::string> config, TaskFactory factory)
      : worker_(Config(std::move(config)), std::move(factory)), run_([this] { worker_.run(); }) {}
  RunningWorker(std::map<std::string, std::string> config, std::shared_ptr<Seen> seen)
      : RunningWorker(std::move(config),
                      [seen] { return std::make_unique<CollectingSink>(seen); }) {}
  ~RunningWorker() { stop(); }
  void stop() {
    worker_.stop();
    run_.waitFinished(60s);
  }
  // True when run() ended (a failed task) within `timeout`.
  bool waitFinished(std::chrono::milliseconds timeout) { return run_.waitFinished(timeout); }
  // What run() threw; "" while it runs or when it returned.
  std::string error() const { return run_.errorMessage(); }
  ConnectorStatus status() const { return worker_.status(); }
  // Task 0's counters, all 0 until it exists.
  TaskCounters counters() const {
    const auto tasks = worker_.status().tasks;
    return tasks.empty() ? TaskCounters{} : tasks[0].counters;
  }

 private:
  Worker worker_;
  test::BackgroundRun run_;
};

std::map<std::string, std::string> connectorConfig(const std::string& name,
                                                   const std::string& topic) {
  return {{"name", name},
          {"bootstrap.servers", RealKafka::shared().bootstrap()},
          {"topics", topic},
          {"offset.flush.interval.ms", "500"},
          {"consumer.override.session.timeout.ms", "10000"}};
}

TEST(WorkerRealBroker, PeriodicCommitStoresLastDeliveredPlusOneWhileRunning) {
  auto& kafka = RealKafka::shared();
  const auto topic = uniqueName("periodic");
  const auto name = uniqueName("conn");
  kafka.createTopic(topic, 3);
  kafka.produceSequence(topic, 3, 300);

  auto seen = std::make_shared<Seen>();
  RunningWorker worker(connectorConfig(name, topic), seen);
  ASSERT_TRUE(waitUntil([&] { return seen->count() >= 300; }, 60s));
  // The periodic cycle, not the shutdown, must have committed: the worker is still running.
  const OffsetMap expected{{{topic, 0}, 100}, {{topic, 1}, 100}, {{topic, 2}, 100}};
  EXPECT_EQ(kafka.waitForCommitted("connect-" + name, topic, 3, expected, 20s), expected);
  worker.stop();
  EXPECT_EQ(worker.error(), "");
  EXPECT_EQ(seen->count(), 300u);
}

// Writes `aborted` records in a transaction that is aborted, then `committed` in one that commits.
void produceTransactions(const std::string& topic, int aborted, int committed) {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  for (const auto& [k, v] :
       std::map<std::string, std::string>{{"bootstrap.servers", RealKafka::shared().bootstrap()},
                                          {"transactional.id", uniqueName("tx")}})
    ASSERT_EQ(rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof err), RD_KAFKA_CONF_OK);
  std::unique_ptr<rd_kafka_t, decltype(&rd_kafka_destroy)> producer(
      rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err), rd_kafka_destroy);
  ASSERT_TRUE(producer) << err;
  const auto ok = [](rd_kafka_error_t* e) {
    const std::string what = e ? rd_kafka_error_string(e) : "";
    if (e) rd_kafka_error_destroy(e);
    return what;
  };
  ASSERT_EQ(ok(rd_kafka_init_transactions(producer.get(), 30000)), "");
  for (const int n : {aborted, committed}) {
    ASSERT_EQ(ok(rd_kafka_begin_transaction(producer.get())), "");
    for (int i = 0; i < n; ++i) {
      const auto value = fmt::format("{}-{}", n == aborted ? "aborted" : "committed", i);
      ASSERT_EQ(rd_kafka_producev(producer.get(), RD_KAFKA_V_TOPIC(topic.c_str()),
                                  RD_KAFKA_V_PARTITION(0),
                                  RD_KAFKA_V_VALUE(const_cast<char*>(value.data()), value.size()),
                                  RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END),
                RD_KAFKA_RESP_ERR_NO_ERROR);
    }
    // In the log before the abort (an abort purges what was not sent yet).
    ASSERT_EQ(rd_kafka_flush(producer.get(), 30000), RD_KAFKA_RESP_ERR_NO_ERROR);
    ASSERT_EQ(ok(n == aborted ? rd_kafka_abort_transaction(producer.get(), 30000)
                              : rd_kafka_commit_transaction(producer.get(), 30000)),
              "");
  }
}

TEST(WorkerRealBroker, RecordsOfAnAbortedTransactionNeverReachTheSink) {
  // Sinks read committed data only (isolation.level=read_committed, stated by ksink): 10 records
  // aborted (offsets 0-9, its marker 10), then 5 committed (11-15, marker 16).
  const auto topic = uniqueName("tx");
  RealKafka::shared().createTopic(topic, 1);
  ASSERT_NO_FATAL_FAILURE(produceTransactions(topic, 10, 5));
  auto seen = std::make_shared<Seen>();
  {
    RunningWorker worker(connectorConfig(uniqueName("conn"), topic), seen);
    ASSERT_TRUE(waitUntil([&] { return seen->count() >= 5; }, 60s));
    std::this_thread::sleep_for(1s);  // anything more would arrive meanwhile
  }
  EXPECT_EQ(seen->offsetsOf({topic, 0}), (std::vector<int64_t>{11, 12, 13, 14, 15}));
  // The setting is what decides: read_uncommitted (Connect's consumer default) delivers all 15.
  auto uncommitted = std::make_shared<Seen>();
  auto config = connectorConfig(uniqueName("conn"), topic);
  config["consumer.isolation.level"] = "read_uncommitted";
  RunningWorker worker(config, uncommitted);
  EXPECT_TRUE(waitUntil([&] { return uncommitted->count() >= 15; }, 60s)) << uncommitted->count();
}

TEST(WorkerRealBroker, PreCommitReturningLessCommitsOnlyThatAndRestartRedeliversFromIt) {
  auto& kafka = RealKafka::shared();
  const auto topic = uniqueName("lessthan");
  const auto name = uniqueName("conn");
  kafka.createTopic(topic, 2);
  kafka.produceSequence(topic, 2, 40);  // 20 per partition

  {
    auto seen = std::make_shared<Seen>();
    // The sink says only records below offset 7 are durable.
    seen->pre_commit = [](const OffsetMap& current) {
      OffsetMap out;
      for (const auto& [tp, offset] : current) out[tp] = std::min<int64_t>(offset, 7);
      return out;
    };
    RunningWorker worker(connectorConfig(name, topic), seen);
    ASSERT_TRUE(waitUntil([&] { return seen->count() >= 40; }, 60s));
    const OffsetMap expected{{{topic, 0}, 7}, {{topic, 1}, 7}};
    EXPECT_EQ(kafka.waitForCommitted("connect-" + name, topic, 2, expected, 20s), expected);
    worker.stop();
    // The final commit at shutdown does not go past what preCommit returned either.
    EXPECT_EQ(kafka.committed("connect-" + name, topic, 2), expected);
  }
  auto seen = std::make_shared<Seen>();
  RunningWorker worker(connectorConfig(name, topic), seen);
  ASSERT_TRUE(waitUntil([&] { return seen->count() >= 26; }, 60s));
  worker.stop();
  std::lock_guard lock(seen->mutex);
  for (int p = 0; p < 2; ++p) {
    const auto& offsets = seen->offsets[{topic, p}];
    ASSERT_EQ(offsets.size(), 13u) << "partition " << p;
    EXPECT_EQ(offsets.front(), 7) << "partition " << p;
    EXPECT_EQ(offsets.back(), 19) << "partition " << p;
  }
}

// Maps values with RecordMapper and the flaky converter (tests/support/flaky_converter.h) as the
// reference sinks do, and hands the records that fail to the errant record reporter. With
// `reject_all` it reports every record it mapped too, as writes the destination refused.
class MappingSink : public SinkTask {
 public:
  MappingSink(std::shared_ptr<Seen> seen, std::shared_ptr<testing::Faults> faults, bool reject_all)
      : seen_(std::move(seen)), faults_(std::move(faults)), reject_all_(reject_all) {}
  void start(const Config&) override {
    mapper_ = std::make_unique<RecordMapper>(
        TableSinkConfig::parse(Config(std::map<std::string, std::string>{{"name", "it"}})),
        std::make_unique<testing::FlakyConverter>(faults_),
        std::make_unique<testing::FlakyConverter>(faults_));
  }
  void put(std::span<const SinkRecord> records) override {
    const auto batch = mapper_->map(records, context());
    for (const auto& failure : batch.failures) {
      try {
        std::rethrow_exception(failure.error);
      } catch (const std::exception& e) {
        report(*failure.record, e);
      }
    }
    for (const auto& row : batch.rows) {
      if (reject_all_) {
        report(*row.record, std::runtime_error("rejected by the destination"));
        continue;
      }
      std::lock_guard lock(seen_->mutex);
      seen_->offsets[row.record->topicPartition()].push_back(row.record->offset());
      ++seen_->total;
    }
  }
  void stop() override {}

 private:
  void report(const SinkRecord& record, const std::exception& error) {
    if (auto* reporter = context().errantRecordReporter()) return reporter->report(record, error);
    std::lock_guard lock(seen_->mutex);
    seen_->reporter_missing = true;
    throw std::runtime_error(std::string("no errant record reporter for: ") + error.what());
  }

  std::shared_ptr<Seen> seen_;
  std::shared_ptr<testing::Faults> faults_;
  bool reject_all_;
  std::unique_ptr<RecordMapper> mapper_;
};

// connectorConfig() with the dead-letter queue `dlq` (ksink creates it) and its context headers.
std::map<std::string, std::string> withDlq(std::map<std::string, std::string> config,
                                           const std::string& dlq) {
  config["connector.class"] = "mapping";
  config["errors.deadletterqueue.topic.name"] = dlq;
  config["errors.deadletterqueue.topic.replication.factor"] = "1";
  config["errors.deadletterqueue.context.headers.enable"] = "true";
  return config;
}

// v0..v9 keyed k0..k9 on partition 0, the value at `at` replaced by `special` + at.
std::vector<RealKafka::Message> tenWith(int at, const std::string& special) {
  std::vector<RealKafka::Message> messages;
  for (int i = 0; i < 10; ++i)
    messages.push_back({0, "k" + std::to_string(i), (i == at ? special : "v") + std::to_string(i)});
  return messages;
}

// Scenarios 34-38: a MappingSink connector over a fresh one-partition topic, with a dead-letter
// queue in `config` (the test sets errors.tolerance and the retry keys).
class WorkerRealBrokerErrors : public ::testing::Test {
 protected:
  WorkerRealBrokerErrors() { kafka.createTopic(topic, 1); }

  TaskFactory sink(bool reject_all = false) {
    return [seen = seen, faults = faults, reject_all] {
      return std::make_unique<MappingSink>(seen, faults, reject_all);
    };
  }
  // The group's committed offset once it is `offset`, or the last one read after 30 s.
  std::optional<int64_t> waitForCommitted(int64_t offset) {
    const auto last = kafka.waitForCommitted(group(), topic, 1, {{{topic, 0}, offset}}, 30s);
    return last.empty() ? std::nullopt : std::optional(last.begin()->second);
  }
  // The group's committed offset read back from the broker, nullopt when there is none.
  std::optional<int64_t> committed() {
    const auto offsets = kafka.committed(group(), topic, 1);
    return offsets.empty() ? std::nullopt : std::optional(offsets.begin()->second);
  }
  std::string group() const { return "connect-" + name; }
  int64_t dlqEnd() { return kafka.endOffset({dlq, 0}); }
  std::vector<int64_t> putOffsets() { return seen->offsetsOf({topic, 0}); }

  RealKafka& kafka = RealKafka::shared();
  const std::string topic = uniqueName("errors");
  const std::string dlq = topic + "-dlq";
  const std::string name = uniqueName("conn");
  std::map<std::string, std::string> config = withDlq(connectorConfig(name, topic), dlq);
  std::shared_ptr<Seen> seen = std::make_shared<Seen>();
  std::shared_ptr<testing::Faults> faults = std::make_shared<testing::Faults>();
};

TEST_F(WorkerRealBrokerErrors, S34_ToleranceNoneFailsOnThePoisonPillAndCommitsNothingPastIt) {
  kafka.produceSequence(topic, 1, 5);  // a first batch that succeeds
  // A reporter exists (the DLQ), but errors.tolerance is none.
  RunningWorker worker(config, sink());
  ASSERT_EQ(waitForCommitted(5), 5);
  kafka.produce(topic, tenWith(7, "bad"));  // offsets 5..14, the bad one at 12
  ASSERT_TRUE(worker.waitFinished(30s));
  EXPECT_NE(worker.error().find("Tolerance exceeded"), std::string::npos) << worker.error();
  EXPECT_NE(worker.error().find(topic + "-0@12"), std::string::npos) << worker.error();
  ASSERT_TRUE(committed().has_value());
  EXPECT_GE(*committed(), 5);
  EXPECT_LE(*committed(), 12);
  for (const auto offset : putOffsets()) EXPECT_LT(offset, 12);
  EXPECT_EQ(dlqEnd(), 0);  // nothing skipped, so nothing dead-lettered
}

TEST_F(WorkerRealBrokerErrors, S35_ToleranceAllWritesThePoisonPillToTheDlqAndCommitsPastIt) {
  kafka.produce(topic, tenWith(7, "bad"));
  config["errors.tolerance"] = "all";
  RunningWorker worker(config, sink());
  EXPECT_EQ(waitForCommitted(10), 10);
  worker.stop();
  EXPECT_EQ(putOffsets(), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 8, 9}));
  // The DLQ topic exists (ksink created it) and holds exactly the bad record.
  EXPECT_EQ(dlqEnd(), 1);
}

TEST_F(WorkerRealBrokerErrors, S36_AConversionThatFailsOnceIsRetriedAndTheRecordDelivered) {
  kafka.produce(topic, tenWith(4, "flaky"));
  config["errors.retry.timeout"] = "2000";
  config["errors.tolerance"] = "all";  // were the record given up, it would go to the DLQ
  faults->flaky_failures = 1;
  RunningWorker worker(config, sink());
  EXPECT_EQ(waitForCommitted(10), 10);
  EXPECT_EQ(putOffsets(), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  const auto counters = worker.counters();
  EXPECT_GE(counters.errors.total_retries, 1u);
  EXPECT_EQ(counters.errors.total_records_skipped, 0u);
  EXPECT_EQ(dlqEnd(), 0);
}

// KAFKA-18073: with errors.tolerance=none the record fails the task and is never dropped.
TEST_F(WorkerRealBrokerErrors, S37_ExhaustedRetriesUnderToleranceNoneFailTheTaskAndSkipNothing) {
  kafka.produceSequence(topic, 1, 5);  // a first batch that succeeds
  config["errors.retry.timeout"] = "700";
  RunningWorker worker(config, sink());
  ASSERT_EQ(waitForCommitted(5), 5);
  kafka.produce(topic, tenWith(2, "stuck"));  // offsets 5..14, the stuck one at 7
  ASSERT_TRUE(worker.waitFinished(30s));
  EXPECT_NE(worker.error().find(topic + "-0@7"), std::string::npos) << worker.error();
  EXPECT_GE(worker.counters().errors.total_retries, 1u);
  ASSERT_TRUE(committed().has_value());
  EXPECT_GE(*committed(), 5);
  EXPECT_LE(*committed(), 7);
  for (const auto offset : putOffsets()) EXPECT_LT(offset, 7);
  EXPECT_EQ(dlqEnd(), 0);
}

TEST_F(WorkerRealBrokerErrors, S37_ExhaustedRetriesUnderToleranceAllSkipTheRecordToTheDlq) {
  kafka.produce(topic, tenWith(7, "stuck"));
  config["errors.retry.timeout"] = "700";
  config["errors.tolerance"] = "all";
  RunningWorker worker(config, sink());
  EXPECT_EQ(waitForCommitted(10), 10);
  EXPECT_EQ(putOffsets(), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 8, 9}));
  EXPECT_GE(worker.counters().errors.total_retries, 1u);
  EXPECT_EQ(dlqEnd(), 1);
  const auto dead = test::readPartition(kafka.bootstrap(), dlq, 0, 1, 10s);
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].value, "stuck7");
  EXPECT_EQ(dead[0].headers.at("__connect.errors.offset"), "7");
  EXPECT_EQ(dead[0].headers.at("__connect.errors.stage"), "VALUE_CONVERTER");
}

TEST_F(WorkerRealBrokerErrors, S38_EveryReportedRecordIsInTheDlqBeforeTheCommitThatCoversIt) {
  kafka.produceSequence(topic, 1, 10);
  config["errors.tolerance"] = "all";
  // DLQ writes left to themselves wait a second: a commit not waiting for them would be seen.
  config["producer.override.linger.ms"] = "1000";
  RunningWorker worker(config, sink(/*reject_all=*/true));
  // Every commit read back is already covered by acknowledged DLQ writes.
  std::optional<int64_t> last;
  EXPECT_TRUE(waitUntil(
      [&] {
        last = committed();
        if (last) {
          EXPECT_GE(dlqEnd(), *last);
        }
        return last == 10;
      },
      30s))
      << "committed " << last.value_or(-1);
  EXPECT_EQ(seen->count(), 0u);
  EXPECT_EQ(dlqEnd(), 10);
  const auto dead = test::readPartition(kafka.bootstrap(), dlq, 0, 10, 10s);
  ASSERT_EQ(dead.size(), 10u);
  for (size_t i = 0; i < dead.size(); ++i) {
    EXPECT_EQ(dead[i].value, "v" + std::to_string(i));
    EXPECT_EQ(dead[i].headers.at("__connect.errors.offset"), std::to_string(i));
    EXPECT_EQ(dead[i].headers.at("__connect.errors.stage"), "TASK_PUT");
  }
}

TEST_F(WorkerRealBrokerErrors, S38_WithoutDlqOrErrorLogTheReporterIsNull) {
  kafka.produceSequence(topic, 1, 3);
  RunningWorker worker(connectorConfig(name, topic), sink(/*reject_all=*/true));
  ASSERT_TRUE(worker.waitFinished(30s));
  std::lock_guard lock(seen->mutex);
  EXPECT_TRUE(seen->reporter_missing) << worker.error();
  EXPECT_EQ(committed(), std::nullopt);
}

// Two tasks that join at once cost librdkafka 2.0.2 two seconds on a broker that completes the
// first join at once (as this one: group.initial.rebalance.delay.ms=0): the worker starts the first
// task alone, so it gets every partition and works while the second one joins.
class OpenRecordingSink : public SinkTask {
 public:
  struct Log {
    std::mutex mutex;
    std::vector<std::pair<int, size_t>> opens;  // (task, partitions) in the order open() came
  };
  OpenRecordingSink(std::shared_ptr<Log> log, int task) : log_(std::move(log)), task_(task) {}
  void start(const Config&) override {}
  void open(const std::vector<TopicPartition>& partitions) override {
    std::lock_guard lock(log_->mutex);
    log_->opens.emplace_back(task_, partitions.size());
  }
  void put(std::span<const SinkRecord>) override {}
  void stop() override {}

 private:
  std::shared_ptr<Log> log_;
  int task_;
};

TEST(WorkerRealBroker, TheFirstTaskJoinsAloneAndTakesEveryPartitionThenTheOthersShare) {
  auto& kafka = RealKafka::shared();
  const auto topic = uniqueName("stagger");
  kafka.createTopic(topic, 6);
  auto config = connectorConfig(uniqueName("conn"), topic);
  config["tasks.max"] = "2";
  config["consumer.override.heartbeat.interval.ms"] = "500";
  auto log = std::make_shared<OpenRecordingSink::Log>();
  auto created = std::make_shared<std::atomic<int>>(0);
  RunningWorker worker(config, [log, created] {
    return std::make_unique<OpenRecordingSink>(log, created->fetch_add(1));
  });
  // Then the second task's join rebalances the group: both end up with partitions.
  ASSERT_TRUE(waitUntil(
      [&] {
        const auto tasks = worker.status().tasks;
        return tasks.size() == 2 && !tasks[0].partitions.empty() && !tasks[1].partitions.empty();
      },
      60s));
  worker.stop();
  std::lock_guard lock(log->mutex);
  ASSERT_FALSE(log->opens.empty());
  EXPECT_EQ(log->opens.front(), (std::pair<int, size_t>{0, 6}));
}

}  // namespace
}  // namespace ksink::it
