// A conversion that throws RetriableError is retried, then follows errors.tolerance (scenarios 36
// and 37 of the Connect sink acceptance scenarios): StageRetry and retryBackoff alone, RecordMapper
// going through them, and a TransactionalSinkTask-based sink on the embedded broker, where the
// checks are what the destination holds, the offsets committed, the dead-letter queue and
// total-retries.
#include <gtest/gtest.h>

#include <mutex>
#include <thread>

#include "fake_sink_task_context.h"
#include "flaky_converter.h"
#include "ksink/conversion_error.h"
#include "ksink/converter.h"
#include "ksink/ksink.h"
#include "ksink/record_mapper.h"
#include "ksink/transactional_sink_task.h"
#include "retry_backoff.h"
#include "stage_retry.h"
#include "status_server.h"
#include "support/manual_clock.h"
#include "support/mock_cluster.h"
#include "support/topic_reader.h"
#include "support/worker_runner.h"

namespace ksink {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

std::exception_ptr retriable(const std::string& what) {
  return std::make_exception_ptr(RetriableError(what));
}

// The message of the RetriableError (not Interrupted) that retry.run() gives up with, "" if none.
std::string givenUpWith(StageRetry& retry, const std::function<void()>& step) {
  try {
    retry.run(retriable("first"), step);
  } catch (const StageRetry::Interrupted&) {
    return "";
  } catch (const RetriableError& e) {
    return e.what();
  }
  return "";
}

TEST(RetryBackoff, StartsAt300MsAndDoublesUpToTheCap) {
  EXPECT_EQ(retryBackoff(0, 60000ms), 300ms);
  EXPECT_EQ(retryBackoff(1, 60000ms), 600ms);
  EXPECT_EQ(retryBackoff(2, 60000ms), 1200ms);
  EXPECT_EQ(retryBackoff(3, 1000ms), 1000ms);
  EXPECT_EQ(retryBackoff(500, 60000ms), 60000ms);
}

using test::ManualClock;
using Waits = std::vector<std::chrono::milliseconds>;

TEST(StageRetry, S36_RunsTheStepAgainUntilItSucceedsAndCountsEachRetry) {
  std::atomic<uint64_t> retries{0};
  ManualClock clock(ManualClock::Sleeps::kPassAtOnce);
  StageRetry retry(10000ms, 60000ms, retries, clock);
  int runs = 0;
  retry.run(retriable("first"), [&] {
    if (++runs < 3) throw RetriableError("again");
  });
  EXPECT_EQ(runs, 3);
  EXPECT_EQ(retries, 3u);
  EXPECT_EQ(clock.sleeps(), (Waits{300ms, 600ms, 1200ms}));
}

TEST(StageRetry, S37_ZeroTimeoutRethrowsTheFailureWithoutRetrying) {
  std::atomic<uint64_t> retries{0};
  StageRetry retry(0ms, 1ms, retries);
  int runs = 0;
  EXPECT_EQ(givenUpWith(retry, [&] { ++runs; }), "first");
  EXPECT_EQ(runs, 0);
  EXPECT_EQ(retries, 0u);
}

TEST(StageRetry, S37_GivesUpAfterTheTimeoutWithTheLastFailure) {
  std::atomic<uint64_t> retries{0};
  ManualClock clock(ManualClock::Sleeps::kPassAtOnce);
  StageRetry retry(2000ms, 650ms, retries, clock);
  int runs = 0;
  const auto started = clock.now();
  const auto last =
      givenUpWith(retry, [&] { throw RetriableError("run " + std::to_string(++runs)); });
  // Backing off to the cap, the last wait cut short by the deadline, then no further run.
  EXPECT_EQ(clock.sleeps(), (Waits{300ms, 600ms, 650ms, 450ms}));
  EXPECT_EQ(clock.now() - started, 2000ms);
  EXPECT_EQ(runs, 4);
  EXPECT_EQ(last, "run 4");
  EXPECT_EQ(retries, 4u);
}

TEST(StageRetry, ANonRetriableErrorEndsTheRetriesAtOnce) {
  std::atomic<uint64_t> retries{0};
  StageRetry retry(10000ms, 1ms, retries);
  int runs = 0;
  EXPECT_THROW(retry.run(retriable("first"),
                         [&] {
                           ++runs;
                           throw ConversionError("bad record");
                         }),
               ConversionError);
  EXPECT_EQ(runs, 1);
}

TEST(StageRetry, CancelEndsAnUnboundedWaitWithInterrupted) {
  std::atomic<uint64_t> retries{0};
  // Time never moves here: only cancel() can end the first wait.
  ManualClock clock;
  StageRetry retry(-1ms, 60000ms, retries, clock);
  std::thread canceller([&] {
    ASSERT_TRUE(clock.awaitWaits(1, 10s));
    retry.cancel();
  });
  int runs = 0;
  EXPECT_THROW(retry.run(retriable("first"), [&] { ++runs; }), StageRetry::Interrupted);
  canceller.join();
  EXPECT_EQ(clock.sleeps(), (Waits{300ms}));
  EXPECT_EQ(runs, 0);
  // Once cancelled, a later failure is not retried either.
  EXPECT_THROW(retry.run(retriable("later"), [] {}), StageRetry::Interrupted);
}

// A context whose retryConversion is the worker's, on a clock whose waits pass at once.
class RetryingContext : public testing::FakeSinkTaskContext {
 public:
  explicit RetryingContext(std::chrono::milliseconds timeout)
      : retry(timeout, 100ms, retries, clock) {}
  void retryConversion(std::exception_ptr failure, const std::function<void()>& convert) override {
    retry.run(std::move(failure), convert);
  }
  std::atomic<uint64_t> retries{0};
  ManualClock clock{ManualClock::Sleeps::kPassAtOnce};
  StageRetry retry;
};

using testing::Faults;
using testing::FlakyConverter;

RecordMapper flakyMapper(int flaky_failures) {
  auto faults = std::make_shared<Faults>();
  faults->flaky_failures = flaky_failures;
  return RecordMapper(
      TableSinkConfig::parse(Config(std::map<std::string, std::string>{{"name", "c"}})),
      std::make_unique<FlakyConverter>(faults), std::make_unique<FlakyConverter>(faults));
}

std::vector<SinkRecord> records(std::initializer_list<std::string_view> values) {
  std::vector<SinkRecord> out;
  int64_t offset = 0;
  for (auto v : values) out.emplace_back("t", 0, offset++, std::nullopt, std::nullopt, v);
  return out;
}

TEST(RecordMapperRetry, S36_ARetriableConversionIsRetriedAndTheRowKept) {
  auto mapper = flakyMapper(2);
  RetryingContext context(1000ms);
  const auto in = records({"a", "flaky", "b"});
  const auto batch = mapper.map(in, context);
  EXPECT_TRUE(batch.failures.empty());
  ASSERT_EQ(batch.rows.size(), 3u);
  EXPECT_EQ(batch.rows[1].record, &in[1]);
  EXPECT_EQ(context.retries, 2u);
}

TEST(RecordMapperRetry, S37_ExhaustedRetriesMakeTheRecordAFailureAndTheRestIsMapped) {
  auto mapper = flakyMapper(0);
  RetryingContext context(250ms);
  const auto in = records({"a", "stuck", "b"});
  const auto batch = mapper.map(in, context);
  ASSERT_EQ(batch.failures.size(), 1u);
  EXPECT_EQ(batch.failures[0].record, &in[1]);
  EXPECT_THROW(std::rethrow_exception(batch.failures[0].error), RetriableError);
  EXPECT_EQ(batch.rows.size(), 2u);
  // errors.retry.timeout=250 with waits capped at 100 ms: three retries, the last after 50 ms.
  EXPECT_EQ(context.clock.sleeps(), (Waits{100ms, 100ms, 50ms}));
  EXPECT_EQ(context.retries, 3u);
}

TEST(RecordMapperRetry, ConversionErrorsAreNeverRetried) {
  auto mapper = flakyMapper(0);
  RetryingContext context(1000ms);
  const auto in = records({"bad"});
  const auto batch = mapper.map(in, context);
  ASSERT_EQ(batch.failures.size(), 1u);
  EXPECT_THROW(std::rethrow_exception(batch.failures[0].error), ConversionError);
  EXPECT_EQ(context.retries, 0u);
}

TEST(RecordMapperRetry, AStopDuringTheRetriesLeavesMapInsteadOfFailingTheRecord) {
  auto mapper = flakyMapper(0);
  RetryingContext context(-1ms);
  context.retry.cancel();
  const auto in = records({"a", "stuck"});
  EXPECT_THROW(mapper.map(in, context), StageRetry::Interrupted);
}

TEST(RecordMapperRetry, WithoutAContextARetriableConversionIsAFailureAtOnce) {
  auto mapper = flakyMapper(1);
  const auto in = records({"flaky"});
  const auto batch = mapper.map(in);
  ASSERT_EQ(batch.failures.size(), 1u);
  EXPECT_THROW(std::rethrow_exception(batch.failures[0].error), RetriableError);
}

// A transactional destination in memory, shared by the tasks of successive workers: the values
// written and the stored offsets change together.
struct Destination {
  std::mutex mutex;
  std::vector<std::string> values;
  OffsetMap offsets;
  std::shared_ptr<Faults> faults = std::make_shared<Faults>();

  std::vector<std::string> written() {
    std::lock_guard lock(mutex);
    return values;
  }
};

// Converts with RecordMapper and the flaky converter and writes like the reference sinks do:
// failures reported through the batch scope, rows and offsets in one transaction.
class MappingDestination : public TransactionalDestination, public OffsetStore {
 public:
  MappingDestination(std::shared_ptr<Destination> dest, const Config& config)
      : dest_(std::move(dest)),
        mapper_(TableSinkConfig::parse(Config(std::map<std::string, std::string>{
                    {"name", config.get("name").value_or("c")}})),
                std::make_unique<FlakyConverter>(dest_->faults),
                std::make_unique<FlakyConverter>(dest_->faults)) {}

  OffsetStore& offsetStore() override { return *this; }
  OffsetMap load(const std::vector<TopicPartition>& partitions) override {
    std::lock_guard lock(dest_->mutex);
    OffsetMap out;
    for (const auto& tp : partitions)
      if (auto it = dest_->offsets.find(tp); it != dest_->offsets.end()) out[tp] = it->second;
    return out;
  }
  bool compareAndSet(const Update& u) override {
    auto it = dest_->offsets.find(u.partition);
    const auto actual =
        it == dest_->offsets.end() ? std::nullopt : std::optional<int64_t>(it->second);
    if (actual != u.expected) return false;
    staged_[u.partition] = u.next_offset;
    return true;
  }

  Written writeBatch(std::span<const SinkRecord> records, BatchScope& scope) override {
    auto batch = scope.map(mapper_, records);
    std::lock_guard lock(dest_->mutex);
    staged_.clear();
    if (!scope.storeOffsets()) return Written::kFenced;
    for (const auto& row : batch.rows) dest_->values.emplace_back(row.record->value().value_or(""));
    for (const auto& [tp, next] : staged_) dest_->offsets[tp] = next;
    return Written::kCommitted;
  }

 private:
  std::shared_ptr<Destination> dest_;
  RecordMapper mapper_;
  OffsetMap staged_;
};

class MappingSink : public TransactionalSinkTask {
 public:
  explicit MappingSink(std::shared_ptr<Destination> dest) : dest_(std::move(dest)) {}
  std::string version() const override { return "test"; }

 protected:
  std::unique_ptr<TransactionalDestination> openDestination(const Config& config) override {
    return std::make_unique<MappingDestination>(dest_, config);
  }

 private:
  std::shared_ptr<Destination> dest_;
};

// v0..v9 with the value at `at` replaced by `special` + at.
std::vector<test::TestRecord> tenWith(int at, const std::string& special) {
  std::vector<test::TestRecord> out;
  for (int i = 0; i < 10; ++i)
    out.push_back({"k" + std::to_string(i), (i == at ? special : "v") + std::to_string(i)});
  return out;
}

// Runs a Worker over `props` (tolerance, DLQ and retry keys set by the test) with MappingSink.
struct WorkerUnderTest {
  WorkerUnderTest(const test::Properties& props, std::shared_ptr<Destination> dest)
      : worker(Config(props), [dest] { return std::make_unique<MappingSink>(dest); }),
        run([this] { worker.run(); }) {}
  ~WorkerUnderTest() { worker.stop(); }
  uint64_t totalRetries() const {  // 0 until the task exists
    const auto tasks = worker.status().tasks;
    return tasks.empty() ? 0 : tasks[0].counters.errors.total_retries;
  }

  Worker worker;
  test::BackgroundRun run;
};

class ConversionRetryScenario : public ::testing::Test {
 protected:
  void SetUp() override {
    name = test::currentTestName();
    mock.createTopic(name, 1);
    mock.createTopic(name + "-dlq", 1);
    props = test::mockWorkerProperties(name, name, mock.bootstrap());
    props["connector.class"] = "mapping-sink";
    props["errors.deadletterqueue.topic.name"] = name + "-dlq";
    props["errors.deadletterqueue.topic.replication.factor"] = "1";
  }
  std::optional<int64_t> waitForCommitted(int64_t offset) {
    return mock.waitForCommitted(group(), {name, 0}, offset, 30s);
  }
  std::string group() const { return "connect-" + name; }
  std::vector<test::ConsumedRecord> dlq(std::chrono::milliseconds wait) {
    return test::readPartition(mock.bootstrap(), name + "-dlq", 0, 1, wait);
  }

  test::MockCluster mock;
  std::string name;
  test::Properties props;
  std::shared_ptr<Destination> dest = std::make_shared<Destination>();
};

TEST_F(ConversionRetryScenario, S36_AConversionThatFailsOnceIsRetriedAndTheRecordWritten) {
  props["errors.retry.timeout"] = "1000";
  props["errors.tolerance"] = "all";  // were the record given up, it would go to the DLQ
  dest->faults->flaky_failures = 1;
  mock.produce(name, 0, tenWith(4, "flaky"));
  WorkerUnderTest w(props, dest);
  EXPECT_EQ(waitForCommitted(10), 10);
  const auto written = dest->written();
  EXPECT_EQ(written.size(), 10u);
  EXPECT_EQ(std::count(written.begin(), written.end(), "flaky4"), 1);
  EXPECT_GE(w.totalRetries(), 1u);
  EXPECT_EQ(w.worker.status().tasks.at(0).counters.errors.total_records_skipped, 0u);
  EXPECT_TRUE(dlq(2s).empty());
  // /metrics serves the count as Connect's task-error metric: the one retry that succeeded.
  const auto metrics = renderPrometheus({w.worker.status()});
  EXPECT_NE(metrics.find("kafka_connect_task_error_metrics_total_retries{connector=\"" + name +
                         "\",task=\"0\"} 1\n"),
            std::string::npos)
      << metrics;
}

TEST_F(ConversionRetryScenario, S37_ExhaustedRetriesUnderToleranceAllSkipTheRecordToTheDlq) {
  props["errors.retry.timeout"] = "700";
  props["errors.tolerance"] = "all";
  props["errors.deadletterqueue.context.headers.enable"] = "true";
  mock.produce(name, 0, tenWith(7, "stuck"));
  WorkerUnderTest w(props, dest);
  EXPECT_EQ(waitForCommitted(10), 10);
  const auto written = dest->written();
  EXPECT_EQ(written.size(), 9u);
  EXPECT_EQ(std::count(written.begin(), written.end(), "stuck7"), 0);
  EXPECT_GE(w.totalRetries(), 1u);
  const auto dead = dlq(5s);
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].value, "stuck7");
  EXPECT_EQ(dead[0].headers.at("__connect.errors.offset"), "7");
  EXPECT_EQ(dead[0].headers.at("__connect.errors.stage"), "VALUE_CONVERTER");
}

// KAFKA-18073: with errors.tolerance=none the record must fail the task, never be dropped.
TEST_F(ConversionRetryScenario, S37_ExhaustedRetriesUnderToleranceNoneFailTheTaskAndSkipNothing) {
  props["errors.retry.timeout"] = "700";
  mock.produceValues(name, 0, 5);  // a first batch that succeeds
  {
    WorkerUnderTest w(props, dest);
    ASSERT_EQ(waitForCommitted(5), 5);
    mock.produce(name, 0, tenWith(2, "stuck"));  // offsets 5..14, the stuck one at 7
    ASSERT_TRUE(w.run.waitFinished(30s));
    EXPECT_NE(w.run.errorMessage().find(name + "-0@7"), std::string::npos) << w.run.errorMessage();
    EXPECT_GE(w.totalRetries(), 1u);
  }
  const auto committed = mock.committed(group(), TopicPartition{name, 0});
  ASSERT_TRUE(committed.has_value());
  EXPECT_LE(*committed, 7);
  const auto before = dest->written();
  EXPECT_LE(before.size(), 7u);  // nothing from offset 7 on
  EXPECT_EQ(std::count(before.begin(), before.end(), "stuck2"), 0);
  EXPECT_TRUE(dlq(1s).empty());

  // Once the converter works again, a restarted worker writes the record: it was not skipped.
  dest->faults->stuck = false;
  WorkerUnderTest again(props, dest);
  EXPECT_EQ(waitForCommitted(15), 15);
  const auto written = dest->written();
  EXPECT_EQ(written.size(), 15u);
  EXPECT_EQ(std::count(written.begin(), written.end(), "stuck2"), 1);
}

// A worker stopped while a conversion waits for its next retry stops at once; the record is
// neither skipped to the DLQ nor committed.
TEST_F(ConversionRetryScenario, S37_StopDuringTheRetriesNeitherWaitsNorSkipsTheRecord) {
  props["errors.retry.timeout"] = "-1";
  props["errors.tolerance"] = "all";
  mock.produce(name, 0, tenWith(3, "stuck"));
  auto w = std::make_unique<WorkerUnderTest>(props, dest);
  for (int i = 0; i < 100 && w->totalRetries() == 0; ++i) std::this_thread::sleep_for(100ms);
  ASSERT_GE(w->totalRetries(), 1u);
  const auto stopped = Clock::now();
  w->worker.stop();
  ASSERT_TRUE(w->run.waitFinished(30s));
  EXPECT_LT(Clock::now() - stopped, 10s);
  EXPECT_EQ(w->run.errorMessage(), "");
  w.reset();
  EXPECT_LE(mock.committed(group(), TopicPartition{name, 0}).value_or(0), 3);
  const auto written = dest->written();
  EXPECT_EQ(std::count(written.begin(), written.end(), "stuck3"), 0);
  EXPECT_TRUE(dlq(1s).empty());
}

}  // namespace
}  // namespace ksink
