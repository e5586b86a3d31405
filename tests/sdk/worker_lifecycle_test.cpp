// Start, delivery, rewinds, task-driven pause and shutdown on the embedded broker
// (Connect sink acceptance scenarios 1, 3, 5, 21–23, 30, 32, 33).
//
// Scenario 4 (records keep their original coordinates through SMTs) is in
// worker_conversion_test.cpp, with the runtime's conversion and transforms.
// Scenario 33 in Connect is a connector pause through the REST API, which ksink does not have; the
// task-driven pause/resume through SinkTaskContext is tested instead.
#include <poll.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <thread>

#include "ksink/retriable_error.h"
#include "support/polling.h"
#include "support/worker_scenario.h"

namespace ksink::test {
namespace {

using namespace std::chrono_literals;

std::vector<int64_t> firstOffsets(const std::vector<RecordedRecord>& records,
                                  const TopicPartition& tp) {
  std::vector<int64_t> out;
  for (const auto& r : records)
    if (r.tp == tp) out.push_back(r.offset);
  return out;
}

TEST_F(WorkerScenarios, S01_StartOpensThenDeliversFromCommittedOrEarliest) {
  mock().createTopic(topic_, 2);
  mock().produceValues(topic_, 0, 10);
  mock().produceValues(topic_, 1, 3);
  mock().seedCommitted(group_, {{tp0_, 5}});
  WorkerRunner worker(props(), factory());

  ASSERT_TRUE(waitDelivered(tp1_, 3) &&
              waitFor([&](const auto& c) { return deliveredOffsets(c, tp0_).size() >= 5; }))
      << describe(calls());
  const auto log = calls();
  ASSERT_FALSE(log.empty());
  EXPECT_EQ(log.front().kind, CallKind::kStart);
  // Before the assignment only empty puts; then open() of both partitions, before any record.
  const auto open = findCall(
      log, [](const Call& c) { return c.kind != CallKind::kPut; }, 1);
  ASSERT_TRUE(open);
  EXPECT_EQ(log[*open].kind, CallKind::kOpen) << describe(log);
  EXPECT_EQ(sorted(log[*open].partitions), (std::vector<TopicPartition>{tp0_, tp1_}));
  for (size_t i = 1; i < *open; ++i) EXPECT_TRUE(log[i].records.empty()) << describe(log[i]);
  EXPECT_EQ(select(log, CallKind::kOpen).size(), 1u);
  // t-0 starts at its committed offset, t-1 (nothing committed) at the earliest one.
  EXPECT_EQ(deliveredOffsets(log, tp0_), (std::vector<int64_t>{5, 6, 7, 8, 9}));
  EXPECT_EQ(deliveredOffsets(log, tp1_), (std::vector<int64_t>{0, 1, 2}));
}

// The mock creates every topic a Metadata request names, whatever allow.auto.create.topics says
// (its 2.0.2 Metadata handler always auto-creates), so a consumer subscribed to a missing topic by
// name would create it. A pattern subscription asks for all topics instead and names none.
TEST_F(WorkerScenarios, S03_NoTopicMeansNoOpenUntilTheTopicAppears) {
  auto p = props();
  p.erase("topics");
  p["topics.regex"] = "^" + topic_ + "$";
  // Rediscover the subscribed topics soon (librdkafka's default is 5 minutes), but not during a
  // join: a pattern subscription whose metadata is refreshed while its JoinGroup waits (3 s on
  // the mock) sees a "changed" subscription and rejoins, sometimes several times in a row.
  p["consumer.topic.metadata.refresh.interval.ms"] = "3500";
  WorkerRunner worker(p, factory());

  // A while without the topic: start, then only empty puts.
  std::this_thread::sleep_for(2s);
  auto log = calls();
  EXPECT_EQ(select(log, CallKind::kStart).size(), 1u);
  EXPECT_TRUE(select(log, CallKind::kOpen).empty()) << describe(log);
  EXPECT_TRUE(deliveredRecords(log).empty());
  EXPECT_GE(select(log, CallKind::kPut).size(), 5u);

  mock().createTopic(topic_, 2);
  mock().produceValues(topic_, 0, 2);
  ASSERT_TRUE(waitDelivered(tp0_, 2)) << describe(calls());
  log = calls();
  const auto opens = select(log, CallKind::kOpen);
  ASSERT_EQ(opens.size(), 1u) << describe(log);
  EXPECT_EQ(sorted(opens[0].partitions), (std::vector<TopicPartition>{tp0_, tp1_}));
  const auto open = findCall(log, [](const Call& c) { return c.kind == CallKind::kOpen; });
  const auto first_record = findCall(log, [](const Call& c) { return !c.records.empty(); });
  ASSERT_TRUE(open && first_record);
  EXPECT_LT(*open, *first_record);
}

// One test for what a record carries, to spend one group join on it: timestamps (missing, given,
// stamped by the producer), keys and values (null, empty, binary), headers (repeated, null value).
TEST_F(WorkerScenarios, S05_RecordsArriveAsProducedAndAMissingTimestampIsNullopt) {
  mock().createTopic(topic_, 1);
  constexpr int64_t kGiven = 1700000000123;
  const auto before =
      std::chrono::duration_cast<milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  const std::string binary("\0\x01\xff", 3);
  mock().produce(topic_, 0,
                 {{.key = "k0", .value = "v0", .timestamp = -1},
                  {.key = std::nullopt, .value = binary, .timestamp = kGiven},
                  {.key = "k2", .value = std::nullopt, .headers = {{"h", "x"}, {"h", "y"}}},
                  {.key = "", .value = "", .headers = {{"null", std::nullopt}}}});
  WorkerRunner worker(props(), factory());

  ASSERT_TRUE(waitDelivered(tp0_, 4)) << describe(calls());
  const auto records = deliveredRecords(calls());
  ASSERT_EQ(records.size(), 4u);
  EXPECT_EQ(records[0].timestamp, std::nullopt);  // Kafka's -1
  EXPECT_EQ(records[1].timestamp, kGiven);
  for (size_t i : {2, 3}) {
    ASSERT_TRUE(records[i].timestamp);
    EXPECT_GE(*records[i].timestamp, before);
    EXPECT_LT(*records[i].timestamp, before + 60000);
  }
  EXPECT_EQ(records[0].key, "k0");
  EXPECT_EQ(records[0].value, "v0");
  EXPECT_EQ(records[1].key, std::nullopt);
  EXPECT_EQ(records[1].value, binary);
  EXPECT_EQ(records[2].value, std::nullopt);  // tombstone
  EXPECT_EQ(records[3].key, "");              // empty, not null
  EXPECT_EQ(records[3].value, "");
  using Headers = std::vector<std::pair<std::string, std::optional<std::string>>>;
  EXPECT_TRUE(records[0].headers.empty());
  EXPECT_EQ(records[2].headers, (Headers{{"h", "x"}, {"h", "y"}}));
  EXPECT_EQ(records[3].headers, (Headers{{"null", std::nullopt}}));
}

// ksink differs from Connect in one detail here: Connect also marks 40 as "last committed" and so
// sends nothing until the task moves past 40; ksink's ledger keeps what the coordinator
// acknowledged (10) and commits what preCommit confirms. Either way the group never moves past
// what the task delivered, which is what this test pins down.
TEST_F(WorkerScenarios, S21_RewindInOpenStartsAtTheRequestedOffset) {
  mock().createTopic(topic_, 1);
  mock().produceValues(topic_, 0, 50);
  mock().seedCommitted(group_, {{tp0_, 10}});
  script_->rewindInOpen({{tp0_, 40}});
  WorkerRunner worker(props(), factory());

  ASSERT_TRUE(waitFor([&](const auto& c) { return deliveredOffsets(c, tp0_).size() >= 10; }))
      << describe(calls());
  std::vector<int64_t> expected;
  for (int64_t o = 40; o < 50; ++o) expected.push_back(o);
  EXPECT_EQ(deliveredOffsets(calls(), tp0_), expected);
  EXPECT_EQ(waitCommitted(tp0_, 50), 50);
}

TEST_F(WorkerScenarios, S22_RewindInPutRestartsAtTheRequestedOffset) {
  mock().createTopic(topic_, 1);
  mock().produceValues(topic_, 0, 20);
  auto p = props();
  p["consumer.max.poll.records"] = "5";
  script_->rewindWhenPutContains(tp0_, 7, {{tp0_, 2}});    // backwards
  script_->rewindWhenPutContains(tp0_, 13, {{tp0_, 17}});  // forwards
  WorkerRunner worker(p, factory());

  ASSERT_EQ(waitCommitted(tp0_, 20), 20) << describe(calls());
  const auto log = calls();
  const auto puts = select(log, CallKind::kPut);
  auto nextRecordAfter = [&](int64_t offset) -> std::optional<int64_t> {
    for (size_t i = 0; i < puts.size(); ++i) {
      if (!contains(puts[i], tp0_, offset)) continue;
      for (size_t j = i + 1; j < puts.size(); ++j)
        if (!puts[j].records.empty()) return puts[j].records.front().offset;
      return std::nullopt;
    }
    return std::nullopt;
  };
  EXPECT_EQ(nextRecordAfter(7), 2) << describe(log);
  EXPECT_EQ(nextRecordAfter(13), 17) << describe(log);
  // Records between the forward rewind's target and the batch that asked for it are skipped.
  const auto offsets = deliveredOffsets(log, tp0_);
  EXPECT_EQ(std::count(offsets.begin(), offsets.end(), 2), 2);
  EXPECT_EQ(offsets.back(), 19);
}

// Connect fails the task here (IllegalStateException from the consumer's seek); ksink ignores the
// request with a warning, as SinkTaskContext::offset() documents.
TEST_F(WorkerScenarios, S23_RewindOfAnUnassignedPartitionIsIgnored) {
  const std::string other = topic_ + "-other";
  mock().createTopic(topic_, 1);
  mock().createTopic(other, 1);
  mock().produceValues(topic_, 0, 5);
  mock().produceValues(other, 0, 5);
  const TopicPartition unassigned{other, 0};
  script_->rewindWhenPutContains(tp0_, 2, {{unassigned, 3}});
  WorkerRunner worker(props(), factory());

  ASSERT_EQ(waitCommitted(tp0_, 5), 5) << describe(calls());
  mock().produceValues(topic_, 0, 2, "v", 5);
  ASSERT_EQ(waitCommitted(tp0_, 7), 7) << describe(calls());
  EXPECT_FALSE(worker.run().finished()) << worker.run().errorMessage();
  EXPECT_EQ(deliveredOffsets(calls(), tp0_), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6}));
  EXPECT_TRUE(deliveredOffsets(calls(), unassigned).empty());
  EXPECT_EQ(mock().committed(group_, unassigned), std::nullopt);
}

TEST_F(WorkerScenarios, S32_SlowShutdownSkipsTheFinalCommitButStillCloses) {
  mock().createTopic(topic_, 1);
  mock().produceValues(topic_, 0, 5);
  auto p = props();
  p["offset.flush.interval.ms"] = "60000";
  p["task.shutdown.graceful.timeout.ms"] = "800";
  auto slow = std::make_shared<std::atomic<bool>>(false);
  script_->requestCommitWhenPutContains(tp0_, 4);
  script_->onPreCommit([slow](SinkTaskContext&, const OffsetMap&) -> std::optional<OffsetMap> {
    if (*slow) std::this_thread::sleep_for(1800ms);
    return std::nullopt;
  });
  WorkerRunner worker(p, factory());
  ASSERT_EQ(waitCommitted(tp0_, 5), 5) << describe(calls());
  mock().produceValues(topic_, 0, 5, "v", 5);
  ASSERT_TRUE(waitDelivered(tp0_, 10)) << describe(calls());

  *slow = true;
  const auto took = worker.stopAndMeasure(10s);
  ASSERT_TRUE(took);
  // run() gave up on the task at the graceful timeout (plus the worker's small slack) ...
  EXPECT_LT(*took, 1600ms);
  // ... and the task, once its preCommit returned, still closed and stopped, without committing.
  ASSERT_TRUE(
      waitFor([](const auto& c) { return !c.empty() && c.back().kind == CallKind::kStop; }, 10s))
      << describe(calls());
  const auto log = calls();
  const auto final_pc = findCall(log, [&](const Call& c) {
    return c.kind == CallKind::kPreCommit && c.offsets == OffsetMap{{tp0_, 10}};
  });
  ASSERT_TRUE(final_pc) << describe(log);
  std::vector<CallKind> after;
  for (size_t i = *final_pc + 1; i < log.size(); ++i) after.push_back(log[i].kind);
  EXPECT_EQ(after, (std::vector<CallKind>{CallKind::kFlush, CallKind::kClose, CallKind::kStop}))
      << describe(log);
  EXPECT_EQ(mock().committed(group_, tp0_), 5);
}

TEST_F(WorkerScenarios, StopIsBoundedWhenTheCoordinatorStopsAnswering) {
  mock().createTopic(topic_, 1);
  mock().produceValues(topic_, 0, 5);
  auto p = props();
  p["offset.flush.interval.ms"] = "60000";
  p["task.shutdown.graceful.timeout.ms"] = "1000";
  WorkerRunner worker(p, factory());
  ASSERT_TRUE(waitDelivered(tp0_, 5)) << describe(calls());

  // The final commit's answer comes after 6 s, far past the 1 s shutdown bound. The consumer's
  // own close waits for it too, so it finishes in the background once the answer arrives, well
  // within the time the cluster fixture gives a lingering client.
  mock().pushBrokerRequestRtts(1, kOffsetCommit, {{RD_KAFKA_RESP_ERR_NO_ERROR, 6000}});
  const auto took = worker.stopAndMeasure(20s);
  ASSERT_TRUE(took) << "run() did not return within 20 s of stop()";
  EXPECT_LT(*took, 1000ms + 800ms);
  EXPECT_EQ(worker.run().error(), nullptr) << worker.run().errorMessage();
  const auto log = calls();
  ASSERT_GE(log.size(), 3u);
  EXPECT_EQ(log[log.size() - 1].kind, CallKind::kStop);
  EXPECT_EQ(log[log.size() - 2].kind, CallKind::kClose);
  EXPECT_EQ(select(log, CallKind::kPreCommit).back().offsets, (OffsetMap{{tp0_, 5}}));
}

// ksink's, beyond Connect: a RetriableError from start() (a database away) is a start tried again
// after the context's timeout, the consumer joining only once start() returned; the status shows
// the task RUNNING with why it waits.
TEST_F(WorkerScenarios, ARetriableStartIsStartedAgainBeforeTheTaskJoins) {
  mock().createTopic(topic_, 1);
  mock().produceValues(topic_, 0, 3);
  auto starts = std::make_shared<std::atomic<int>>(0);
  script_->onStart([starts](SinkTaskContext& context) {
    if (++*starts > 2) return;
    context.timeout(300ms);
    throw RetriableError("database away");
  });
  WorkerRunner worker(props(), factory());
  ASSERT_TRUE(waitFor([](const auto& c) { return select(c, CallKind::kStart).size() >= 2; }, 10s));
  const auto waiting = worker.worker().status();
  ASSERT_EQ(waiting.tasks.size(), 1u);
  EXPECT_EQ(waiting.tasks[0].state, "RUNNING");
  EXPECT_EQ(waiting.tasks[0].last_error, "database away");

  ASSERT_TRUE(waitDelivered(tp0_, 3)) << describe(calls());
  const auto log = calls();
  const auto open = findCall(log, [](const Call& c) { return c.kind == CallKind::kOpen; });
  ASSERT_TRUE(open) << describe(log);
  std::vector<size_t> starts_before_open;
  for (size_t i = 0; i < *open; ++i)
    if (log[i].kind == CallKind::kStart) starts_before_open.push_back(i);
  EXPECT_EQ(starts_before_open, (std::vector<size_t>{0, 1, 2})) << describe(log);
  EXPECT_TRUE(log[0].threw && log[1].threw && !log[2].threw) << describe(log);
  EXPECT_GE(log[1].at - log[0].at, 300ms) << "the context's timeout between two starts";
  EXPECT_EQ(worker.worker().status().tasks[0].last_error, "") << "cleared once started";
}

TEST_F(WorkerScenarios, AStopEndsTheWaitForAStartToBeTriedAgain) {
  mock().createTopic(topic_, 1);
  script_->onStart([](SinkTaskContext& context) {
    context.timeout(1h);
    throw RetriableError("database away");
  });
  WorkerRunner worker(props(), factory());
  ASSERT_TRUE(waitFor([](const auto& c) { return !select(c, CallKind::kStart).empty(); }, 10s));
  const auto took = worker.stopAndMeasure(10s);
  ASSERT_TRUE(took);
  EXPECT_LT(*took, 2s);
  EXPECT_EQ(worker.run().error(), nullptr) << worker.run().errorMessage();
  const auto log = calls();
  EXPECT_EQ(select(log, CallKind::kStart).size(), 1u) << describe(log);
  EXPECT_TRUE(select(log, CallKind::kOpen).empty()) << describe(log);
  EXPECT_EQ(log.back().kind, CallKind::kStop) << describe(log);
}

// ksink's stall report: records wait beyond the committed offsets and no commit comes for
// task.stall.intervals × offset.flush.interval.ms (here a put() that does not return) — the status
// says so, with how long, until a commit moves on.
TEST_F(WorkerScenarios, ASinkWhoseRecordsWaitWithNoCommitIsShownStalledUntilACommit) {
  mock().createTopic(topic_, 1);
  mock().produceValues(topic_, 0, 3);
  auto p = props();
  p["task.stall.intervals"] = "2";  // of offset.flush.interval.ms=500, at least a second each: 2 s
  auto slow = std::make_shared<std::atomic<bool>>(true);
  script_->onPut([slow](SinkTaskContext&, std::span<const SinkRecord> records) {
    if (!records.empty() && slow->exchange(false)) std::this_thread::sleep_for(3500ms);
  });
  WorkerRunner worker(p, factory());
  const auto stalledNow = [&] {
    const auto status = worker.worker().status();
    return status.tasks.empty() ? std::string() : status.tasks[0].stalled;
  };
  std::string stalled;
  ASSERT_TRUE(it::waitUntil(
      [&] {
        stalled = stalledNow();
        return !stalled.empty();
      },
      10s))
      << describe(calls());
  EXPECT_TRUE(stalled.starts_with("no commit while records wait beyond the committed offsets for "))
      << stalled;
  EXPECT_NE(stalled.find("(task.stall.intervals × offset.flush.interval.ms: 2 s)"),
            std::string::npos)
      << stalled;
  EXPECT_EQ(waitCommitted(tp0_, 3), 3) << describe(calls());
  EXPECT_TRUE(it::waitUntil([&] { return stalledNow().empty(); }, 5s)) << stalledNow();
}

TEST_F(WorkerScenarios, S33_TaskPausedPartitionGetsNothingUntilResumed) {
  mock().createTopic(topic_, 2);
  mock().produceValues(topic_, 0, 5);
  mock().produceValues(topic_, 1, 5);
  auto resume = std::make_shared<std::atomic<bool>>(false);
  script_->pauseInOpen({tp0_});
  script_->onPut([resume, tp = tp0_](SinkTaskContext& ctx, std::span<const SinkRecord>) {
    if (resume->exchange(false)) ctx.resume({tp});
  });
  WorkerRunner worker(props(), factory());

  ASSERT_TRUE(waitDelivered(tp1_, 5)) << describe(calls());
  ASSERT_EQ(waitCommitted(tp1_, 5), 5);
  // Another commit cycle: put() keeps running, t-0 stays paused.
  const auto seen = select(calls(), CallKind::kPreCommit).size();
  ASSERT_TRUE(
      waitFor([&](const auto& c) { return select(c, CallKind::kPreCommit).size() >= seen + 1; }));
  EXPECT_TRUE(deliveredOffsets(calls(), tp0_).empty()) << describe(calls());
  EXPECT_EQ(committed({tp0_, tp1_}), (OffsetMap{{tp0_, 0}, {tp1_, 5}}));

  *resume = true;
  ASSERT_TRUE(waitDelivered(tp0_, 5)) << describe(calls());
  EXPECT_EQ(deliveredOffsets(calls(), tp0_), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(waitCommitted(tp0_, 5), 5);
}

// A sink for the crash test's child process: reports each delivered offset on a pipe.
class OffsetReportingSink final : public SinkTask {
 public:
  explicit OffsetReportingSink(int fd) : fd_(fd) {}
  void start(const Config&) override {}
  void put(std::span<const SinkRecord> records) override {
    for (const auto& r : records) {
      const auto line = fmt::format("{}\n", r.offset());
      if (::write(fd_, line.data(), line.size()) < 0) std::_Exit(3);
    }
  }
  void stop() override {}

 private:
  int fd_;
};

// Scenario 30: the process dies between put() and the commit. The child is forked before this
// process starts any thread (no mock cluster yet), so it owns a clean copy of the process; it reads
// the mock's address from a pipe and runs a worker until it is killed.
TEST(WorkerCrash, S30_CrashBeforeCommitRedeliversUncommittedRecords) {
  const std::string name = currentTestName();
  const TopicPartition tp{name, 0};
  int to_child[2], from_child[2];
  ASSERT_EQ(::pipe(to_child), 0);
  ASSERT_EQ(::pipe(from_child), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(to_child[1]);
    ::close(from_child[0]);
    char buf[512] = {};
    const auto n = ::read(to_child[0], buf, sizeof buf - 1);
    if (n <= 0) std::_Exit(2);
    try {
      auto p = mockWorkerProperties(name, name, std::string(buf, static_cast<size_t>(n)));
      p["offset.flush.interval.ms"] = "60000";
      const int fd = from_child[1];
      Worker worker(Config(p), [fd] { return std::make_unique<OffsetReportingSink>(fd); });
      worker.run();
    } catch (...) {
      std::_Exit(4);
    }
    std::_Exit(5);  // run() returns only when stopped, and nobody stops it
  }
  ::close(to_child[0]);
  ::close(from_child[1]);

  MockCluster mock;
  mock.createTopic(name, 1);
  mock.produceValues(name, 0, 10);
  ASSERT_EQ(::write(to_child[1], mock.bootstrap().data(), mock.bootstrap().size()),
            static_cast<ssize_t>(mock.bootstrap().size()));

  // Wait until the child has put all ten records.
  std::string reported;
  const auto deadline = Clock::now() + kWait;
  while (std::count(reported.begin(), reported.end(), '\n') < 10 && Clock::now() < deadline) {
    pollfd pfd{from_child[0], POLLIN, 0};
    if (::poll(&pfd, 1, 200) <= 0) continue;
    char buf[256];
    const auto n = ::read(from_child[0], buf, sizeof buf);
    if (n <= 0) break;
    reported.append(buf, static_cast<size_t>(n));
  }
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ::close(to_child[1]);
  ::close(from_child[0]);
  ASSERT_EQ(reported, "0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n");
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "child status " << status;
  const std::string group = "connect-" + name;
  EXPECT_EQ(mock.committed(group, tp), std::nullopt);

  // A new worker of the same connector gets all ten again (at least once).
  auto log = std::make_shared<CallLog>();
  WorkerRunner worker(mockWorkerProperties(name, name, mock.bootstrap()),
                      RecordingSink::factory(log, std::make_shared<SinkScript>()));
  ASSERT_TRUE(log->waitUntil([&](const auto& c) { return deliveredAll(c, tp, 10); }, kWait))
      << describe(log->calls());
  EXPECT_EQ(firstOffsets(deliveredRecords(log->calls()), tp),
            (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(mock.waitForCommitted(group, tp, 10, kWait), 10);
}

}  // namespace
}  // namespace ksink::test
