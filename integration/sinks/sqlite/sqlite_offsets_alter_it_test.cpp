// `ksink offsets --set/--reset` on the SQLite sink, end to end through the real `ksink` binary and
// a real broker: the sink keeps its offsets in the database file (ksink_offsets) and rewinds to
// them in open(), so the command must change those as well as the consumer group's (KIP-875's
// alterOffsets), and must change neither while the connector runs. Every check reads the table,
// ksink_offsets and the group's committed offsets back.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>

#include "child_process.h"
#include "sqlite_query.h"
#include "test_kafka.h"

namespace ksink::it {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

class SqliteOffsetsAlterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = freshDir("ksink-sqlite-offsets");
    topic_ = uniqueName("sqo");
    name_ = uniqueName("sqlite-offsets");
    db_ = (dir_ / "sink.db").string();
    worker_ = dir_ / "worker.properties";
    connector_ = dir_ / "connector.properties";
    std::ofstream(worker_) << fmt::format(
        "bootstrap.servers={}\noffset.flush.interval.ms=500\nlisteners=\n"
        "consumer.session.timeout.ms=6000\nconsumer.heartbeat.interval.ms=500\n",
        RealKafka::shared().bootstrap());
    // Plain insert without a key: a record written twice is two rows with the same value.
    std::ofstream(connector_) << fmt::format(
        "name={}\nconnector.class=sqlite\ntopics={}\nconnection.url=sqlite://{}\n"
        "auto.create=true\ninsert.mode=insert\npk.mode=none\nvalue.converter=string\n",
        name_, topic_, db_);
  }

  std::string group() const { return "connect-" + name_; }
  OffsetMap at(int64_t offset) const { return {{{topic_, 0}, offset}}; }

  std::unique_ptr<ChildProcess> startKsink(const std::string& tag) {
    return std::make_unique<ChildProcess>(
        std::vector<std::string>{KSINK_BIN, "run", worker_.string(), connector_.string()},
        dir_ / (tag + ".log"));
  }

  // Runs ksink until the group has committed `expected`, then stops it gracefully.
  void runUntilCommitted(const std::string& tag, const OffsetMap& expected) {
    auto ksink = startKsink(tag);
    EXPECT_EQ(RealKafka::shared().waitForCommitted(group(), topic_, 1, expected, 90s), expected)
        << ksink->log();
    ksink->signal(SIGTERM);
    EXPECT_EQ(ksink->wait(30s), 0) << ksink->log();
  }

  // `ksink offsets <files> <extra…>`: (exit status, output).
  std::pair<int, std::string> runOffsets(const std::string& tag,
                                         const std::vector<std::string>& extra) {
    std::vector<std::string> argv{KSINK_BIN, "offsets", worker_.string(), connector_.string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    ChildProcess cli(argv, dir_ / (tag + ".log"));
    const auto status = cli.wait(60s);
    return {status.value_or(-1), cli.log()};
  }

  // ksink_offsets as an OffsetMap for this connector.
  OffsetMap storedOffsets() const {
    OffsetMap out;
    for (const auto& row : testing::queryRows(
             db_, fmt::format("SELECT topic, partition, next_offset FROM ksink_offsets "
                              "WHERE connector='{}'",
                              name_)))
      out[{row[0], std::stoi(row[1])}] = std::stoll(row[2]);
    return out;
  }

  // How many rows each offset of partition 0 has in the table (value "v<offset>").
  std::map<int64_t, int64_t> rowsPerOffset() const {
    std::map<int64_t, int64_t> out;
    for (const auto& row : testing::queryRows(
             db_, fmt::format(R"(SELECT CAST(substr(value, 2) AS INTEGER) AS o, count(*)
                                 FROM "{}" GROUP BY o)",
                              topic_)))
      out[std::stoll(row[0])] = std::stoll(row[1]);
    return out;
  }

  static std::map<int64_t, int64_t> expectedRows(int64_t records, int64_t twice_from) {
    std::map<int64_t, int64_t> out;
    for (int64_t o = 0; o < records; ++o) out[o] = o < twice_from ? 1 : 2;
    return out;
  }

  fs::path dir_, worker_, connector_;
  std::string topic_, name_, db_;
};

TEST_F(SqliteOffsetsAlterTest, SetOnAStoppedConnectorRewritesFromThereAndMovesTheStoredOffsets) {
  auto& kafka = RealKafka::shared();
  kafka.createTopic(topic_, 1);
  kafka.produceSequence(topic_, 1, 20);
  runUntilCommitted("run1", at(20));
  ASSERT_EQ(storedOffsets(), at(20));

  const auto [status, out] = runOffsets("set", {"--set", topic_ + ":0=5"});
  ASSERT_EQ(status, 0) << out;
  EXPECT_EQ(storedOffsets(), at(5)) << out;
  EXPECT_EQ(kafka.committed(group(), topic_, 1), at(5));

  runUntilCommitted("run2", at(20));
  EXPECT_EQ(rowsPerOffset(), expectedRows(20, 5));
  EXPECT_EQ(storedOffsets(), at(20));
}

TEST_F(SqliteOffsetsAlterTest, ResetOnAStoppedConnectorRewritesEverythingFromTheEarliest) {
  auto& kafka = RealKafka::shared();
  kafka.createTopic(topic_, 1);
  kafka.produceSequence(topic_, 1, 10);
  runUntilCommitted("run1", at(10));
  ASSERT_EQ(storedOffsets(), at(10));

  const auto [status, out] = runOffsets("reset", {"--reset"});
  ASSERT_EQ(status, 0) << out;
  EXPECT_TRUE(storedOffsets().empty()) << out;
  EXPECT_TRUE(kafka.committed(group(), topic_, 1).empty());

  runUntilCommitted("run2", at(10));  // auto.offset.reset: earliest (Connect's default)
  EXPECT_EQ(rowsPerOffset(), expectedRows(10, 0));
  EXPECT_EQ(storedOffsets(), at(10));
}

TEST_F(SqliteOffsetsAlterTest, SetBeforeTheFirstRunCreatesTheStoredOffsetsAndTheSinkStartsThere) {
  auto& kafka = RealKafka::shared();
  kafka.createTopic(topic_, 1);
  kafka.produceSequence(topic_, 1, 10);
  ASSERT_FALSE(fs::exists(db_));

  const auto [status, out] = runOffsets("set", {"--set", topic_ + ":0=6"});
  ASSERT_EQ(status, 0) << out;
  EXPECT_EQ(storedOffsets(), at(6));
  EXPECT_EQ(kafka.committed(group(), topic_, 1), at(6));

  runUntilCommitted("run", at(10));
  EXPECT_EQ(rowsPerOffset(), (std::map<int64_t, int64_t>{{6, 1}, {7, 1}, {8, 1}, {9, 1}}));
}

TEST_F(SqliteOffsetsAlterTest, SetWhileTheConnectorRunsIsRefusedAndChangesNothing) {
  auto& kafka = RealKafka::shared();
  kafka.createTopic(topic_, 1);
  kafka.produceSequence(topic_, 1, 10);
  auto running = startKsink("run");
  ASSERT_EQ(kafka.waitForCommitted(group(), topic_, 1, at(10), 60s), at(10)) << running->log();

  const auto [refused, out] = runOffsets("set-running", {"--set", topic_ + ":0=3"});
  EXPECT_EQ(refused, 1) << out;
  EXPECT_NE(out.find("still has members"), std::string::npos) << out;
  EXPECT_EQ(storedOffsets(), at(10));
  EXPECT_EQ(kafka.committed(group(), topic_, 1), at(10));

  running->signal(SIGTERM);
  ASSERT_EQ(running->wait(30s), 0) << running->log();
  EXPECT_EQ(storedOffsets(), at(10));
  EXPECT_EQ(rowsPerOffset(), expectedRows(10, 10));
}

}  // namespace
}  // namespace ksink::it
