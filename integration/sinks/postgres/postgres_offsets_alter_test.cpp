// `ksink offsets --set/--reset` on the PostgreSQL sink, through the real `ksink` binary, a real
// broker and a real server: the sink keeps its offsets in ksink_offsets beside the rows and
// rewinds to them in open(), so the command must move those as well as the consumer group's
// (KIP-875's alterOffsets). The check is the table: which offsets were written twice.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>

#include "child_process.h"
#include "test_kafka.h"
#include "test_postgres.h"

namespace ksink::it {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

class PostgresOffsetsAlterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = freshDir("ksink-pg-offsets");
    topic_ = uniqueName("pgo");
    name_ = uniqueName("pgoffsets");
    schema_ = TestPostgres::shared().freshSchema("offsets");
    // No key: a record written twice is a second row, not an error.
    schema_->exec(
        fmt::format("CREATE TABLE \"{}\" (__connect_topic text, __connect_partition "
                    "int4, __connect_offset int8, i int8)",
                    topic_));
    worker_ = dir_ / "worker.properties";
    connector_ = dir_ / "connector.properties";
    std::ofstream(worker_) << fmt::format(
        "bootstrap.servers={}\noffset.flush.interval.ms=500\nlisteners=\n"
        "consumer.session.timeout.ms=6000\nconsumer.heartbeat.interval.ms=500\n",
        RealKafka::shared().bootstrap());
    std::ofstream(connector_) << fmt::format(
        "name={}\nconnector.class=postgres\ntopics={}\nconnection.url={}\ninsert.mode=insert\n"
        "pk.mode=kafka\nvalue.converter.schemas.enable=false\n",
        name_, topic_, schema_->url());
  }

  std::string group() const { return "connect-" + name_; }
  OffsetMap at(int64_t offset) const { return {{{topic_, 0}, offset}}; }

  void runUntilCommitted(const std::string& tag, const OffsetMap& expected) {
    ChildProcess ksink({KSINK_BIN, "run", worker_.string(), connector_.string()},
                       dir_ / (tag + ".log"));
    EXPECT_EQ(RealKafka::shared().waitForCommitted(group(), topic_, 1, expected, 90s), expected)
        << ksink.log();
    ksink.signal(SIGTERM);
    EXPECT_EQ(ksink.wait(30s), 0) << ksink.log();
  }

  std::pair<int, std::string> runOffsets(const std::string& tag,
                                         const std::vector<std::string>& extra) {
    std::vector<std::string> argv{KSINK_BIN, "offsets", worker_.string(), connector_.string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    ChildProcess cli(argv, dir_ / (tag + ".log"));
    const auto status = cli.wait(60s);
    return {status.value_or(-1), cli.log()};
  }

  OffsetMap storedOffsets() {
    OffsetMap out;
    for (const auto& row : schema_->query(fmt::format(
             "SELECT topic, \"partition\", next_offset FROM ksink_offsets WHERE connector = '{}'",
             name_)))
      out[{*row[0], std::stoi(*row[1])}] = std::stoll(*row[2]);
    return out;
  }

  // Rows per offset of partition 0.
  std::map<int64_t, int64_t> rowsPerOffset() {
    std::map<int64_t, int64_t> out;
    for (const auto& row : schema_->query(
             fmt::format("SELECT __connect_offset, count(*) FROM \"{}\" GROUP BY 1", topic_)))
      out[std::stoll(*row[0])] = std::stoll(*row[1]);
    return out;
  }

  fs::path dir_, worker_, connector_;
  std::string topic_, name_;
  std::unique_ptr<PgTestSchema> schema_;
};

TEST_F(PostgresOffsetsAlterTest, SetAndResetMoveTheStoredOffsetsSoTheSinkRewritesFromThere) {
  auto& kafka = RealKafka::shared();
  kafka.createTopic(topic_, 1);
  std::vector<RealKafka::Message> messages;
  for (int i = 0; i < 20; ++i)
    messages.push_back({0, std::nullopt, fmt::format(R"({{"i":{}}})", i)});
  kafka.produce(topic_, messages);
  runUntilCommitted("run1", at(20));
  ASSERT_EQ(storedOffsets(), at(20));

  const auto [set_status, set_out] = runOffsets("set", {"--set", topic_ + ":0=15"});
  ASSERT_EQ(set_status, 0) << set_out;
  EXPECT_EQ(storedOffsets(), at(15)) << set_out;
  EXPECT_EQ(kafka.committed(group(), topic_, 1), at(15));
  runUntilCommitted("run2", at(20));
  std::map<int64_t, int64_t> expected;
  for (int64_t o = 0; o < 20; ++o) expected[o] = o < 15 ? 1 : 2;
  EXPECT_EQ(rowsPerOffset(), expected);
  EXPECT_EQ(storedOffsets(), at(20));

  const auto [reset_status, reset_out] = runOffsets("reset", {"--reset"});
  ASSERT_EQ(reset_status, 0) << reset_out;
  EXPECT_TRUE(storedOffsets().empty()) << reset_out;
  EXPECT_TRUE(kafka.committed(group(), topic_, 1).empty());
  runUntilCommitted("run3", at(20));  // from the earliest (auto.offset.reset)
  for (auto& [o, n] : expected) ++n;
  EXPECT_EQ(rowsPerOffset(), expected);
  EXPECT_EQ(storedOffsets(), at(20));
}

TEST_F(PostgresOffsetsAlterTest, ResetWithoutAnOffsetsTableIsANoOpAndSetCreatesIt) {
  auto& kafka = RealKafka::shared();
  kafka.createTopic(topic_, 1);
  ASSERT_EQ(schema_->scalar("SELECT to_regclass('ksink_offsets') IS NOT NULL"), "f");
  const auto [reset_status, reset_out] = runOffsets("reset", {"--reset"});
  EXPECT_EQ(reset_status, 0) << reset_out;
  EXPECT_EQ(schema_->scalar("SELECT to_regclass('ksink_offsets') IS NOT NULL"), "f");

  const auto [set_status, set_out] = runOffsets("set", {"--set", topic_ + ":0=7"});
  ASSERT_EQ(set_status, 0) << set_out;
  EXPECT_EQ(storedOffsets(), at(7));
}

}  // namespace
}  // namespace ksink::it
