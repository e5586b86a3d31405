// TransactionalSinkTask against an in-memory transactional destination: offsets stored with the
// rows, rewinds on open, compare-and-set fencing of zombies, preCommit = what is committed, and
// pipelined commits whose outcome is read later.
#include "ksink/transactional_sink_task.h"

#include <gtest/gtest.h>

#include <set>

#include "fake_sink_task_context.h"
#include "ksink/retriable_error.h"
#include "ksink/transactional_destination.h"

namespace ksink {
namespace {

// A destination shared by several tasks: rows and offsets change together or not at all.
struct FakeDestination {
  std::vector<std::pair<TopicPartition, int64_t>> rows;  // (partition, offset) of written records
  OffsetMap offsets;
  int transactions = 0;
  int fail_next_with_retriable = 0;

  // Pipelining: writeBatch() leaves the transaction pending; awaitOutcome() ends it as `outcome`
  // says. kLost: it commits, but the sink cannot tell (the connection broke before the answer).
  enum class Outcome { kCommit, kRollback, kRetriable, kLost };
  bool pipelined = false;
  Outcome outcome = Outcome::kCommit;
  struct Transaction {
    std::vector<std::pair<TopicPartition, int64_t>> rows;
    OffsetMap offsets;
  };
  std::optional<Transaction> pending;
  std::vector<std::string> calls;  // "write" / "await", in order

  void apply(const Transaction& t) {
    rows.insert(rows.end(), t.rows.begin(), t.rows.end());
    for (const auto& [tp, offset] : t.offsets) offsets[tp] = offset;
    ++transactions;
  }
};

using FakeContext = testing::FakeSinkTaskContext;

// The destination's offsets table: load() reads it, compareAndSet() stages into the open
// transaction.
struct FakeOffsetStore : OffsetStore {
  explicit FakeOffsetStore(FakeDestination& dest) : dest(dest) {}
  OffsetMap load(const std::vector<TopicPartition>& partitions) override {
    ++loads;
    OffsetMap out;
    for (const auto& tp : partitions)
      if (auto it = dest.offsets.find(tp); it != dest.offsets.end()) out[tp] = it->second;
    return out;
  }
  bool compareAndSet(const Update& u) override {
    auto it = dest.offsets.find(u.partition);
    const std::optional<int64_t> actual =
        it == dest.offsets.end() ? std::nullopt : std::optional<int64_t>(it->second);
    if (actual != u.expected) return false;
    staged[u.partition] = u.next_offset;
    return true;
  }
  FakeDestination& dest;
  OffsetMap staged;  // the open transaction's offsets
  int loads = 0;
};

// What the test makes the next transactions do.
struct Behaviour {
  std::set<int64_t> bad;                  // records reported (by offset), before the commit
  bool fatal_outcome = false;             // awaitOutcome() fails fatally
  std::optional<WriteError> write_error;  // the next writeBatch() throws it
};

// One task's side of the destination: the TransactionalDestination the task drives.
class FakeWriter : public TransactionalDestination {
 public:
  FakeWriter(FakeDestination& dest, FakeOffsetStore& store, Behaviour& behaviour, size_t batch)
      : dest_(dest), store_(store), behaviour_(behaviour), batch_(batch) {}

  OffsetStore& offsetStore() override { return store_; }
  size_t maxBatchSize() const override { return batch_; }

  Written writeBatch(std::span<const SinkRecord> records, BatchScope& scope) override {
    if (dest_.fail_next_with_retriable > 0) {
      --dest_.fail_next_with_retriable;
      throw RetriableError("busy");
    }
    if (auto error = std::exchange(behaviour_.write_error, std::nullopt)) throw *error;
    store_.staged.clear();
    if (!scope.storeOffsets()) return Written::kFenced;  // rolled back: nothing staged applies
    dest_.calls.push_back("write");
    EXPECT_FALSE(dest_.pending) << "writeBatch() before the pending outcome was read";
    FakeDestination::Transaction t;
    for (const auto& r : records) {
      if (behaviour_.bad.contains(r.offset()))
        scope.reportBadRecord(r, std::runtime_error("bad"));
      else
        t.rows.emplace_back(r.topicPartition(), r.offset());
    }
    scope.awaitReportedRecords();
    t.offsets = store_.staged;
    if (!dest_.pipelined) {
      dest_.apply(t);
      return Written::kCommitted;
    }
    dest_.pending = std::move(t);
    return Written::kPending;
  }

  bool awaitOutcome() override {
    dest_.calls.push_back("await");
    EXPECT_TRUE(dest_.pending) << "awaitOutcome() without a pending transaction";
    const auto t = *std::exchange(dest_.pending, std::nullopt);
    if (behaviour_.fatal_outcome) throw std::runtime_error("permission denied for table t");
    using Outcome = FakeDestination::Outcome;
    if (dest_.outcome == Outcome::kCommit || dest_.outcome == Outcome::kLost) dest_.apply(t);
    if (dest_.outcome == Outcome::kRetriable || dest_.outcome == Outcome::kLost)
      throw WriteError(WriteFailure::kRetriable, "Fake", "connection lost before COMMIT's answer",
                       std::chrono::milliseconds(25));
    return dest_.outcome == Outcome::kCommit;
  }

 private:
  FakeDestination& dest_;
  FakeOffsetStore& store_;
  Behaviour& behaviour_;
  size_t batch_;
};

class FakeTask : public TransactionalSinkTask, public Behaviour {
 public:
  explicit FakeTask(FakeDestination& dest, size_t batch = 0)
      : store(dest), dest_(dest), batch_(batch) {}
  std::string version() const override { return "test"; }
  FakeOffsetStore store;

 protected:
  std::unique_ptr<TransactionalDestination> openDestination(const Config&) override {
    return std::make_unique<FakeWriter>(dest_, store, *this, batch_);
  }

 private:
  FakeDestination& dest_;
  size_t batch_;
};

const TopicPartition kP0{"t", 0}, kP1{"t", 1};

std::vector<SinkRecord> records(const TopicPartition& tp, int64_t from, int64_t to) {
  std::vector<SinkRecord> out;
  for (int64_t o = from; o < to; ++o)
    out.emplace_back("t", tp.partition, o, std::nullopt, std::nullopt, "v");
  return out;
}

struct Harness {
  explicit Harness(FakeDestination& dest, size_t batch = 0) : task(dest, batch) {
    task.initialize(context);
    task.start(Config());
  }
  FakeContext context;
  FakeTask task;
};

size_t count(const FakeDestination& d, const TopicPartition& tp, int64_t offset) {
  return static_cast<size_t>(std::count(d.rows.begin(), d.rows.end(), std::make_pair(tp, offset)));
}

TEST(TransactionalSinkTaskTest, OpenRewindsToStoredOffsetsAndLeavesMissingOnesToTheGroup) {
  FakeDestination dest;
  dest.offsets[kP0] = 40;
  Harness h(dest);
  h.task.open({kP0, kP1});
  EXPECT_EQ(h.context.rewinds, (OffsetMap{{kP0, 40}}));
  EXPECT_EQ(h.task.committedOffsets(), (OffsetMap{{kP0, 40}}));
}

TEST(TransactionalSinkTaskTest, PutWritesRowsAndOffsetsInOneTransaction) {
  FakeDestination dest;
  Harness h(dest);
  h.task.open({kP0, kP1});
  auto batch = records(kP0, 0, 5);
  const auto more = records(kP1, 10, 12);
  batch.insert(batch.end(), more.begin(), more.end());
  h.task.put(batch);
  EXPECT_EQ(dest.rows.size(), 7u);
  EXPECT_EQ(dest.transactions, 1);
  EXPECT_EQ(dest.offsets, (OffsetMap{{kP0, 5}, {kP1, 12}}));
}

TEST(TransactionalSinkTaskTest, PreCommitReturnsOnlyWhatCommittedTransactionsCover) {
  FakeDestination dest;
  Harness h(dest);
  h.task.open({kP0, kP1});
  EXPECT_TRUE(h.task.preCommit({{kP0, 5}, {kP1, 3}}).empty()) << "nothing written yet";
  h.task.put(records(kP0, 0, 5));
  dest.fail_next_with_retriable = 1;
  EXPECT_THROW(h.task.put(records(kP0, 5, 8)), RetriableError);
  // The worker delivered up to 8 but only 5 are durable; P1 has nothing.
  EXPECT_EQ(h.task.preCommit({{kP0, 8}, {kP1, 3}}), (OffsetMap{{kP0, 5}}));
  // Never more than the worker says it delivered.
  EXPECT_EQ(h.task.preCommit({{kP0, 2}}), (OffsetMap{{kP0, 2}}));
}

TEST(TransactionalSinkTaskTest, RedeliveryAfterARetriableErrorWritesEachRecordOnce) {
  FakeDestination dest;
  Harness h(dest, 2);  // three transactions of at most 2 records
  h.task.open({kP0});
  dest.fail_next_with_retriable = 0;
  auto batch = records(kP0, 0, 6);
  h.task.put(std::span(batch).subspan(0, 2));  // first chunk alone commits
  dest.fail_next_with_retriable = 1;
  EXPECT_THROW(h.task.put(batch), RetriableError);  // whole batch again (0..5): fails at once
  h.task.put(batch);                                // redelivered: 0,1 already there
  for (int64_t o = 0; o < 6; ++o) EXPECT_EQ(count(dest, kP0, o), 1u) << o;
  EXPECT_EQ(dest.offsets[kP0], 6);
}

TEST(TransactionalSinkTaskTest, BatchSizeSplitsAPutIntoSeveralTransactions) {
  FakeDestination dest;
  Harness h(dest, 3);
  h.task.open({kP0});
  h.task.put(records(kP0, 0, 7));
  EXPECT_EQ(dest.transactions, 3);
  EXPECT_EQ(dest.rows.size(), 7u);
  EXPECT_EQ(dest.offsets[kP0], 7);
}

TEST(TransactionalSinkTaskTest, AZombieIsFencedWritesNothingAndRewindsToTheStoredOffset) {
  FakeDestination dest;
  Harness zombie(dest), owner(dest);
  zombie.task.open({kP0});
  zombie.task.put(records(kP0, 0, 10));
  // The partition moves to `owner` while the zombie still believes it has it.
  owner.task.open({kP0});
  EXPECT_EQ(owner.context.rewinds[kP0], 10);
  owner.task.put(records(kP0, 10, 20));
  const auto rows_before = dest.rows.size();

  zombie.task.put(records(kP0, 10, 15));  // compare-and-set against 10 fails: stored is 20
  EXPECT_EQ(dest.rows.size(), rows_before);
  EXPECT_EQ(dest.offsets[kP0], 20);
  EXPECT_EQ(zombie.context.rewinds[kP0], 20);
  EXPECT_EQ(zombie.task.committedOffsets()[kP0], 20);
  for (int64_t o = 0; o < 20; ++o) EXPECT_EQ(count(dest, kP0, o), 1u) << o;
}

TEST(TransactionalSinkTaskTest, TwoTasksWithoutStoredRowsCannotBothInsertIt) {
  FakeDestination dest;
  Harness a(dest), b(dest);
  a.task.open({kP0});
  b.task.open({kP0});
  a.task.put(records(kP0, 0, 5));
  b.task.put(records(kP0, 0, 5));  // insert-if-absent fails: a's row exists
  EXPECT_EQ(dest.rows.size(), 5u);
  EXPECT_EQ(b.context.rewinds[kP0], 5);
}

TEST(TransactionalSinkTaskTest, AFencedBatchRewindsEveryPartitionItDidNotWrite) {
  FakeDestination dest;
  Harness zombie(dest), owner(dest);
  zombie.task.open({kP0, kP1});
  owner.task.open({kP0});
  owner.task.put(records(kP0, 0, 3));
  auto batch = records(kP1, 0, 4);
  const auto p0 = records(kP0, 0, 2);
  batch.insert(batch.end(), p0.begin(), p0.end());
  zombie.task.put(batch);
  EXPECT_EQ(dest.rows.size(), 3u);
  // P1 was not written either: it must be read again from its first record.
  EXPECT_EQ(zombie.context.rewinds, (OffsetMap{{kP0, 3}, {kP1, 0}}));
}

TEST(TransactionalSinkTaskTest, CloseForgetsThePartitions) {
  FakeDestination dest;
  Harness h(dest);
  h.task.open({kP0});
  h.task.put(records(kP0, 0, 2));
  h.task.close({kP0});
  EXPECT_TRUE(h.task.committedOffsets().empty());
  EXPECT_TRUE(h.task.preCommit({{kP0, 2}}).empty());
}

TEST(TransactionalSinkTaskTest, BadRecordWithoutAReporterFailsNamingItsCoordinates) {
  FakeDestination dest;
  Harness h(dest);
  h.task.open({{"orders", 2}});
  h.task.bad = {77};
  const std::vector<SinkRecord> batch{{"orders", 2, 77, std::nullopt, std::nullopt, "x"}};
  try {
    h.task.put(batch);
    FAIL();
  } catch (const RetriableError& e) {
    FAIL() << e.what();
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("topic orders, partition 2, offset 77"), std::string::npos) << what;
    EXPECT_NE(what.find("bad"), std::string::npos) << what;
  }
  EXPECT_EQ(dest.transactions, 0);
}

// A task over a destination that pipelines, with `partitions` open.
struct Pipelined {
  explicit Pipelined(const std::vector<TopicPartition>& partitions) : h(dest) {
    dest.pipelined = true;
    h.task.open(partitions);
  }
  FakeDestination dest;
  Harness h;
};

// Pipelining: a batch's outcome is read before anything that depends on it.
TEST(TransactionalSinkTaskTest, APipelinedOutcomeIsReadBeforeTheNextWriteAndCountsOnlyThen) {
  Pipelined p({kP0});
  auto& [dest, h] = p;
  h.task.put(records(kP0, 0, 5));
  EXPECT_TRUE(dest.offsets.empty()) << "still pending";
  EXPECT_TRUE(h.task.committedOffsets().empty());
  h.task.put(records(kP0, 5, 8));  // reads the first outcome, then writes expecting its offset
  EXPECT_EQ(dest.calls, (std::vector<std::string>{"write", "await", "write"}));
  EXPECT_EQ(dest.offsets, (OffsetMap{{kP0, 5}}));
  EXPECT_EQ(h.task.preCommit({{kP0, 8}}), (OffsetMap{{kP0, 8}}));  // read here
  EXPECT_EQ(dest.offsets, (OffsetMap{{kP0, 8}}));
  for (int64_t o = 0; o < 8; ++o) EXPECT_EQ(count(dest, kP0, o), 1u) << o;
  h.task.put({});  // nothing pending, nothing to do
  EXPECT_EQ(dest.calls.size(), 4u);
}

TEST(TransactionalSinkTaskTest, APipelinedBatchThatDidNotCommitComesAgainWithTheRecordsInHand) {
  Pipelined p({kP0, kP1});
  auto& [dest, h] = p;
  h.task.put(records(kP0, 0, 3));
  h.task.preCommit({});  // committed: P0 stored at 3
  h.task.put(records(kP0, 3, 6));
  dest.outcome = FakeDestination::Outcome::kRollback;
  auto in_hand = records(kP0, 6, 8);
  const auto p1 = records(kP1, 0, 2);
  in_hand.insert(in_hand.end(), p1.begin(), p1.end());
  h.task.put(in_hand);  // the pending batch rolled back: nothing of these is written either
  EXPECT_EQ(dest.calls.back(), "await");
  EXPECT_EQ(h.context.rewinds, (OffsetMap{{kP0, 3}, {kP1, 0}}));
  EXPECT_EQ(h.task.preCommit({{kP0, 8}, {kP1, 2}}), (OffsetMap{{kP0, 3}}));
  // Redelivered from the rewind: written once, expecting the stored offset again.
  dest.outcome = FakeDestination::Outcome::kCommit;
  auto again = records(kP0, 3, 8);
  again.insert(again.end(), p1.begin(), p1.end());
  h.task.put(again);
  EXPECT_EQ(h.task.preCommit({{kP0, 8}, {kP1, 2}}), (OffsetMap{{kP0, 8}, {kP1, 2}}));
  for (int64_t o = 0; o < 8; ++o) EXPECT_EQ(count(dest, kP0, o), 1u) << o;
  EXPECT_EQ(count(dest, kP1, 0) + count(dest, kP1, 1), 2u);
}

TEST(TransactionalSinkTaskTest, APipelinedOutcomeLostAfterItCommittedIsNeitherLostNorDuplicated) {
  Pipelined p({kP0});
  auto& [dest, h] = p;
  h.task.put(records(kP0, 0, 4));
  dest.outcome = FakeDestination::Outcome::kLost;  // committed, but the answer never came
  h.task.put(records(kP0, 4, 6));
  EXPECT_EQ(h.context.rewinds, (OffsetMap{{kP0, 0}}));  // no stored offset yet: its first record
  EXPECT_TRUE(h.task.preCommit({{kP0, 6}}).empty());
  dest.outcome = FakeDestination::Outcome::kCommit;
  h.task.put(records(kP0, 0, 6));  // the redelivery's compare-and-set finds 4: fenced, rewound
  EXPECT_EQ(h.context.rewinds, (OffsetMap{{kP0, 4}}));
  h.task.put(records(kP0, 4, 6));
  h.task.preCommit({});
  for (int64_t o = 0; o < 6; ++o) EXPECT_EQ(count(dest, kP0, o), 1u) << o;
  EXPECT_EQ(dest.offsets, (OffsetMap{{kP0, 6}}));
}

TEST(TransactionalSinkTaskTest, ARetriableOutcomeRewindsToTheStoredOffset) {
  Pipelined p({kP0});
  auto& [dest, h] = p;
  h.task.put(records(kP0, 0, 5));
  h.task.preCommit({});
  h.task.put(records(kP0, 5, 9));
  dest.outcome = FakeDestination::Outcome::kRetriable;
  h.task.put(records(kP0, 9, 10));
  EXPECT_EQ(h.context.rewinds, (OffsetMap{{kP0, 5}}));
  EXPECT_EQ(dest.offsets, (OffsetMap{{kP0, 5}}));
  EXPECT_EQ(h.task.preCommit({{kP0, 10}}), (OffsetMap{{kP0, 5}}));
}

TEST(TransactionalSinkTaskTest, CloseAndOpenReadThePendingOutcomeFirst) {
  Pipelined p({kP0});
  auto& [dest, h] = p;
  h.task.put(records(kP0, 0, 2));
  h.task.close({kP0});
  EXPECT_EQ(dest.offsets, (OffsetMap{{kP0, 2}}));
  h.task.open({kP0});
  h.task.put(records(kP0, 2, 3));
  h.task.open({kP1});  // a cooperative assignment while P0's batch is pending
  EXPECT_EQ(dest.calls, (std::vector<std::string>{"write", "await", "write", "await"}));
  EXPECT_EQ(dest.offsets, (OffsetMap{{kP0, 3}}));
}

}  // namespace
}  // namespace ksink

namespace ksink {
namespace {

class AnsweringReporter : public ErrantRecordReporter {
 public:
  void report(const SinkRecord& record, const std::exception&) override {
    reported.push_back(record.offset());
  }
  Delivery awaitDelivered() override { return delivery; }
  std::vector<int64_t> reported;
  Delivery delivery = Delivery::kDelivered;
};

TEST(TransactionalSinkTaskTest, ATransactionSkippingRecordsCommitsOnlyOnceTheDlqHasThem) {
  FakeDestination dest;
  Harness h(dest);
  AnsweringReporter reporter;
  h.context.reporter = &reporter;
  h.task.open({kP0});
  h.task.bad = {2};
  reporter.delivery = ErrantRecordReporter::Delivery::kPending;
  EXPECT_THROW(h.task.put(records(kP0, 0, 5)), RetriableError);
  reporter.delivery = ErrantRecordReporter::Delivery::kFailed;
  EXPECT_THROW(h.task.put(records(kP0, 0, 5)), std::runtime_error);
  EXPECT_EQ(dest.transactions, 0);
  EXPECT_TRUE(dest.offsets.empty());
  EXPECT_TRUE(h.task.preCommit({{kP0, 5}}).empty());
  reporter.delivery = ErrantRecordReporter::Delivery::kDelivered;
  h.task.put(records(kP0, 0, 5));
  EXPECT_EQ(dest.offsets, (OffsetMap{{kP0, 5}}));
  EXPECT_EQ(count(dest, kP0, 2), 0u);
  EXPECT_EQ(reporter.reported, (std::vector<int64_t>{2, 2, 2}));
}

// A pipelined transaction whose outcome is a fatal error, read inside preCommit() (where the
// worker only rewinds): nothing of it counts, and the next put() fails the task with the error.
TEST(TransactionalSinkTaskTest, AFatalPipelinedOutcomeReadInPreCommitFailsTheNextPut) {
  FakeDestination dest;
  dest.pipelined = true;
  Harness h(dest);
  h.task.open({kP0});
  h.task.put(records(kP0, 0, 5));
  h.task.fatal_outcome = true;
  EXPECT_THROW(h.task.preCommit({{kP0, 5}}), std::runtime_error);
  EXPECT_TRUE(h.task.preCommit({{kP0, 5}}).empty());
  h.task.fatal_outcome = false;
  try {
    h.task.put(records(kP0, 0, 5));
    FAIL() << "put() after a fatal outcome must fail";
  } catch (const RetriableError&) {
    FAIL() << "the failure is fatal, not retriable";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("permission denied"), std::string::npos) << e.what();
  }
  EXPECT_EQ(dest.transactions, 0);
  EXPECT_TRUE(dest.offsets.empty());
}

TEST(OffsetStoreTest, OpenLoadsTheStoredOffsetsThroughTheStore) {
  FakeDestination dest;
  dest.offsets[kP1] = 7;
  Harness h(dest);
  h.task.open({kP0, kP1});
  EXPECT_EQ(h.task.store.loads, 1);
  EXPECT_EQ(h.context.rewinds, (OffsetMap{{kP1, 7}}));
  EXPECT_EQ(h.task.committedOffsets(), (OffsetMap{{kP1, 7}}));
}

TEST(OffsetStoreTest, AWrittenBatchAdvancesTheStoredOffsetsFromAbsentAndFromTheLastValue) {
  FakeDestination dest;
  Harness h(dest);
  h.task.open({kP0});
  h.task.put(records(kP0, 0, 3));  // no row yet: inserted
  h.task.put(records(kP0, 3, 5));  // expected 3: updated
  EXPECT_EQ(dest.offsets, (OffsetMap{{kP0, 5}}));
  EXPECT_EQ(dest.rows.size(), 5u);
  EXPECT_EQ(h.task.preCommit({{kP0, 5}}), (OffsetMap{{kP0, 5}}));
}

TEST(OffsetStoreTest, AStaleExpectationIsFencedWritesNothingAndContinuesFromTheStoredOffset) {
  FakeDestination dest;
  Harness zombie(dest), owner(dest);
  zombie.task.open({kP0});
  zombie.task.put(records(kP0, 0, 4));
  owner.task.open({kP0});
  owner.task.put(records(kP0, 4, 9));
  const auto rows = dest.rows.size();
  zombie.task.put(records(kP0, 4, 6));  // expects 4, the store holds 9
  EXPECT_EQ(dest.rows.size(), rows) << "a fenced task wrote rows";
  EXPECT_EQ(dest.offsets, (OffsetMap{{kP0, 9}}));
  EXPECT_EQ(zombie.context.rewinds[kP0], 9);
  EXPECT_EQ(zombie.task.committedOffsets(), (OffsetMap{{kP0, 9}}));
}

TEST(WriteFailureTest, ARetriableFailureIsARetriableErrorNamingTheDestinationAndBatch) {
  FakeDestination dest;
  Harness h(dest);
  h.task.open({kP0});
  h.task.write_error = WriteError(WriteFailure::kRetriable, "SQLite /x.db", "database is locked",
                                  std::chrono::milliseconds(10));
  try {
    h.task.put(records(kP0, 0, 3));
    FAIL();
  } catch (const RetriableError& e) {
    EXPECT_STREQ(e.what(), "SQLite /x.db: database is locked (retrying the batch of 3 records)");
  }
  EXPECT_EQ(h.context.backoff, std::chrono::milliseconds(10));
  h.task.put(records(kP0, 0, 3));  // redelivered
  EXPECT_EQ(dest.offsets, (OffsetMap{{kP0, 3}}));
}

TEST(WriteFailureTest, FatalAndUnisolatedBadRecordFailuresFailTheTask) {
  for (auto kind : {WriteFailure::kFatal, WriteFailure::kBadData}) {
    FakeDestination dest;
    Harness h(dest);
    h.task.open({kP0});
    h.task.write_error = WriteError(kind, "PostgreSQL", "permission denied");
    try {
      h.task.put(records(kP0, 0, 2));
      FAIL() << toString(kind);
    } catch (const RetriableError&) {
      FAIL() << toString(kind) << " became retriable";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "PostgreSQL rejected a batch of 2 records: permission denied");
    }
    EXPECT_TRUE(dest.offsets.empty());
  }
}

TEST(WriteFailureTest, ARetriablePipelinedOutcomeAsksForTheDestinationsBackoff) {
  Pipelined p({kP0});
  auto& [dest, h] = p;
  dest.outcome = FakeDestination::Outcome::kRetriable;
  h.task.put(records(kP0, 0, 4));
  EXPECT_TRUE(h.task.preCommit({{kP0, 4}}).empty());
  EXPECT_EQ(h.context.backoff, std::chrono::milliseconds(25));
  EXPECT_EQ(h.context.rewinds[kP0], 0);
}

}  // namespace
}  // namespace ksink
