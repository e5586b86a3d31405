// ksink's FileStreamSource in `ksink run` processes against the real broker: a file whose lines are
// sequence numbers, appended at a steady rate while the process is killed (-9) and restarted —
// in what reached Kafka no number is missing, and a kill replays less than an interval's worth;
// graceful restarts replay nothing; exactly once (KIP-618), kills replay nothing either and a
// paused process whose task was taken over is fenced. And a source and a sink in one process: the
// file's lines land as rows of a SQLite table.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <fstream>
#include <map>
#include <thread>

#include "child_process.h"
#include "polling.h"
#include "sqlite_query.h"
#include "test_kafka.h"
#include "topic_reader.h"

namespace ksink::it {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

constexpr int kRatePerSecond = 2000;  // lines the writer appends
constexpr int kFlushIntervalMs = 500;

class FileSourceProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = freshDir("file-source-process");
    topic_ = uniqueName("seq");
    name_ = uniqueName("file-seq");
    input_ = (dir_ / "input.txt").string();
    std::ofstream(input_).close();
    RealKafka::shared().createTopic(topic_, 1);
  }
  void TearDown() override {
    stop_writer_ = true;
    if (writer_.joinable()) writer_.join();
  }

  // Appends "<i>\n" for i = 0 .. total-1 at kRatePerSecond, on a thread.
  void startWriter(int total) {
    writer_ = std::thread([this, total] {
      std::ofstream out(input_, std::ios::app);
      for (int i = 0; i < total && !stop_writer_; ++i) {
        out << i << "\n";
        if (i % 100 == 99) {
          out.flush();
          std::this_thread::sleep_for(std::chrono::milliseconds(100 * 1000 / kRatePerSecond));
        }
      }
      out.flush();
      written_ = true;
    });
  }

  std::unique_ptr<ChildProcess> startKsink(
      const std::string& tag, const std::string& extra = "",
      const std::string& converter = "org.apache.kafka.connect.storage.StringConverter") {
    const auto worker = dir_ / "worker.properties";
    std::ofstream(worker) << fmt::format(
        "bootstrap.servers={}\nexit.on.task.failure=true\noffset.storage.topic={}-offsets\n"
        "offset.storage.replication.factor=1\noffset.storage.partitions=3\n"
        "offset.flush.interval.ms={}\nlisteners=\n",
        RealKafka::shared().bootstrap(), name_, kFlushIntervalMs);
    const auto connector = dir_ / "source.properties";
    std::ofstream(connector) << fmt::format(
        "name={}\nconnector.class=FileStreamSource\nfile={}\ntopic={}\n"
        "value.converter={}\n{}",
        name_, input_, topic_, converter, extra);
    return std::make_unique<ChildProcess>(
        std::vector<std::string>{KSINK_BIN, "run", worker.string(), connector.string()},
        dir_ / (tag + ".log"));
  }

  int64_t produced() { return RealKafka::shared().endOffset({topic_, 0}); }

  // How many times each number is in the topic's committed transactions (read_committed).
  std::map<int, int> committedCounts() {
    std::map<int, int> out;
    for (const auto& r : test::readCommitted(RealKafka::shared().bootstrap(), topic_, 0, 60s))
      ++out[std::stoi(r.value.value_or("-1"))];
    return out;
  }

  // How many times each number reached the topic.
  std::map<int, int> counts() {
    std::map<int, int> out;
    for (const auto& r : test::readPartition(RealKafka::shared().bootstrap(), topic_, 0,
                                             static_cast<size_t>(produced()), 30s))
      ++out[std::stoi(r.value.value_or("-1"))];
    return out;
  }

  // SIGTERM once the task runs (one sent before ksink set its handling up would just kill it).
  void stopGracefully(ChildProcess& ksink) {
    ASSERT_TRUE(waitUntil([&] { return ksink.log().find("started") != std::string::npos; }, 30s))
        << ksink.log();
    ksink.signal(SIGTERM);
    ASSERT_EQ(ksink.wait(20s), 0) << ksink.log();
  }

  fs::path dir_;
  std::string topic_, name_, input_;
  std::thread writer_;
  std::atomic<bool> stop_writer_{false}, written_{false};
};

TEST_F(FileSourceProcessTest, KillNineReplaysLessThanAnIntervalAndLosesNothing) {
  constexpr int kTotal = 16000;  // 8 s of writing
  startWriter(kTotal);
  for (int round = 0; round < 3; ++round) {
    auto ksink = startKsink(fmt::format("kill-{}", round));
    const auto before = produced();
    ASSERT_TRUE(waitUntil([&] { return produced() > before + 1000; }, 30s)) << ksink->log();
    std::this_thread::sleep_for(std::chrono::milliseconds(300 + 400 * round));
    ksink->signal(SIGKILL);
    ksink->wait(10s);
  }
  auto last = startKsink("last");
  ASSERT_TRUE(waitUntil([&] { return written_.load(); }, 60s));
  ASSERT_TRUE(waitUntil([&] { return counts().size() == static_cast<size_t>(kTotal); }, 60s))
      << "numbers in the topic: " << counts().size();
  ASSERT_NO_FATAL_FAILURE(stopGracefully(*last));

  const auto seen = counts();
  int duplicates = 0;
  for (int i = 0; i < kTotal; ++i) {
    ASSERT_TRUE(seen.contains(i)) << i << " is missing";
    duplicates += seen.at(i) - 1;
  }
  // Each kill replays at most what was produced since the last commit: an interval's worth of
  // lines, plus the commit's own round trip (kFlushIntervalMs + 500 ms at kRatePerSecond).
  const int bound = 3 * (kFlushIntervalMs + 500) * kRatePerSecond / 1000;
  EXPECT_LE(duplicates, bound) << "3 kills";
  RecordProperty("duplicates_after_3_kills", duplicates);
}

// Connect's system test test_exactly_once_source, re-done: four rounds of kill -9 (the last two
// without waiting for progress), then every number exactly once to a read_committed reader.
TEST_F(FileSourceProcessTest, ExactlyOnceThroughFourKillNinesNoGapNoDuplicate) {
  constexpr int kTotal = 16000;
  const std::string eos = "exactly.once.source.support=enabled\n";
  startWriter(kTotal);
  for (int round = 0; round < 4; ++round) {
    auto ksink = startKsink(fmt::format("eos-kill-{}", round), eos);
    if (round < 2) {
      const auto before = produced();
      ASSERT_TRUE(waitUntil([&] { return produced() > before + 1000; }, 30s)) << ksink->log();
      std::this_thread::sleep_for(std::chrono::milliseconds(300 + 400 * round));
    } else {
      // No pause: killed as soon as its task produced anything.
      const auto before = produced();
      ASSERT_TRUE(waitUntil([&] { return produced() > before; }, 30s, 5ms)) << ksink->log();
    }
    ksink->signal(SIGKILL);
    ksink->wait(10s);
  }
  auto last = startKsink("eos-last", eos);
  ASSERT_TRUE(waitUntil([&] { return written_.load(); }, 60s));
  ASSERT_TRUE(waitUntil([&] { return committedCounts().size() == static_cast<size_t>(kTotal); },
                        60s, 500ms))
      << "numbers committed: " << committedCounts().size() << "\n"
      << last->log();
  ASSERT_NO_FATAL_FAILURE(stopGracefully(*last));
  const auto seen = committedCounts();
  ASSERT_EQ(seen.size(), static_cast<size_t>(kTotal));
  for (int i = 0; i < kTotal; ++i) {
    ASSERT_TRUE(seen.contains(i)) << i << " is missing";
    ASSERT_EQ(seen.at(i), 1) << i << " is there " << seen.at(i) << " times";
  }
  RecordProperty("records_and_markers_in_the_topic", std::to_string(produced()));
}

// Issue 36, item 7: a source that ran at least once (offsets in the worker's topic), then given an
// offsets topic of its own for exactly once, as docs/exactly-once-sources.md suggests, resumes
// where it was (KIP-618's fallback to the worker's topic), and its new offsets reach both topics.
TEST_F(FileSourceProcessTest, MovedToAnOffsetsTopicOfItsOwnItResumesWhereItWas) {
  auto append = [&](int from, int to) {
    std::ofstream out(input_, std::ios::app);
    for (int i = from; i < to; ++i) out << i << "\n";
  };
  append(0, 1000);
  {
    auto ksink = startKsink("at-least-once");
    ASSERT_TRUE(waitUntil([&] { return produced() == 1000; }, 30s)) << ksink->log();
    ASSERT_NO_FATAL_FAILURE(stopGracefully(*ksink));
  }
  append(1000, 1500);
  const auto own = name_ + "-own-offsets";
  auto ksink = startKsink(
      "own-topic",
      fmt::format("exactly.once.source.support=enabled\noffsets.storage.topic={}\n", own));
  ASSERT_TRUE(waitUntil([&] { return committedCounts().size() == 1500; }, 60s, 250ms))
      << committedCounts().size() << "\n"
      << ksink->log();
  ASSERT_NO_FATAL_FAILURE(stopGracefully(*ksink));
  const auto seen = committedCounts();
  for (int i = 0; i < 1500; ++i)
    ASSERT_EQ(seen.count(i) ? seen.at(i) : 0, 1) << i << " (the file started over?)";
  // The newest offset, in the connector's topic and copied to the worker's.
  const auto size = static_cast<int64_t>(fs::file_size(input_));
  auto newest = [&](const std::string& topic) {
    std::optional<std::string> value;
    for (int p = 0; p < 3; ++p)
      for (const auto& r : test::readCommitted(RealKafka::shared().bootstrap(), topic, p, 30s))
        if (r.key && r.key->find(name_) != std::string::npos) value = r.value;
    return value;
  };
  const auto in_own = newest(own);
  ASSERT_TRUE(in_own.has_value());
  EXPECT_EQ(in_own->rfind(fmt::format(R"({{"position":{},"fingerprint":)", size), 0), 0u)
      << *in_own;
  EXPECT_EQ(newest(name_ + "-offsets"), in_own);
}

// A process paused (SIGSTOP) with a transaction open, its task started elsewhere, then resumed: the
// replacement fenced it, so it cannot commit, and it stops; nothing of it reaches the readers.
TEST_F(FileSourceProcessTest, APausedProcessIsFencedByTheOneThatTookItsTask) {
  constexpr int kTotal = 4000;
  const std::string eos = "exactly.once.source.support=enabled\n";
  auto zombie = startKsink("zombie", eos +
                                         "transaction.boundary=interval\n"
                                         "transaction.boundary.interval.ms=600000\n");
  ASSERT_TRUE(waitUntil([&] { return zombie->log().find("started") != std::string::npos; }, 30s))
      << zombie->log();
  startWriter(kTotal);
  // It commits its first batch (its first transaction ends with it), then sends every other line
  // in a transaction that stays open.
  ASSERT_TRUE(waitUntil([&] { return written_.load(); }, 60s));
  std::this_thread::sleep_for(1500ms);
  zombie->signal(SIGSTOP);
  const auto committed_before = static_cast<int>(committedCounts().size());
  EXPECT_LT(committed_before, kTotal) << "lines in its open transaction are not visible";
  auto replacement = startKsink("replacement", eos);
  ASSERT_TRUE(waitUntil([&] { return written_.load(); }, 60s));
  ASSERT_TRUE(waitUntil([&] { return committedCounts().size() == static_cast<size_t>(kTotal); },
                        60s, 500ms))
      << replacement->log();
  // Awake, it reads the next lines and sends them in its transaction: refused.
  zombie->signal(SIGCONT);
  {
    std::ofstream out(input_, std::ios::app);
    for (int i = kTotal; i < kTotal + 100; ++i) out << i << "\n";
  }
  const auto exit_status = zombie->wait(30s);
  ASSERT_TRUE(exit_status) << "still running after SIGCONT\n" << zombie->log();
  EXPECT_NE(*exit_status, 0) << zombie->log();
  EXPECT_NE(zombie->log().find("fenced"), std::string::npos) << zombie->log();
  ASSERT_TRUE(waitUntil(
      [&] { return committedCounts().size() == static_cast<size_t>(kTotal + 100); }, 60s, 500ms))
      << replacement->log();
  ASSERT_NO_FATAL_FAILURE(stopGracefully(*replacement));
  const auto seen = committedCounts();
  ASSERT_EQ(seen.size(), static_cast<size_t>(kTotal + 100));
  for (const auto& [number, times] : seen) ASSERT_EQ(times, 1) << number << " twice";
  // The zombie's open lines are in the log, aborted, beside the replacement's (and markers).
  EXPECT_GE(produced(), 2 * kTotal + 100 - committed_before);
}

TEST_F(FileSourceProcessTest, GracefulRestartsReplayNothing) {
  constexpr int kTotal = 8000;
  startWriter(kTotal);
  for (int round = 0; round < 3; ++round) {
    auto ksink = startKsink(fmt::format("graceful-{}", round));
    const auto before = produced();
    ASSERT_TRUE(waitUntil([&] { return produced() > before + 500; }, 30s)) << ksink->log();
    ASSERT_NO_FATAL_FAILURE(stopGracefully(*ksink));
  }
  auto last = startKsink("last");
  ASSERT_TRUE(waitUntil([&] { return written_.load(); }, 60s));
  ASSERT_TRUE(waitUntil([&] { return produced() >= kTotal; }, 60s)) << produced();
  ASSERT_NO_FATAL_FAILURE(stopGracefully(*last));
  const auto seen = counts();
  ASSERT_EQ(seen.size(), static_cast<size_t>(kTotal));
  for (const auto& [number, times] : seen) ASSERT_EQ(times, 1) << number << " twice";
}

// A line that is not valid UTF-8 (bad\xff\xfeutf) reaches Kafka as Connect writes it: valid JSON,
// each malformed sequence one U+FFFD.
TEST_F(FileSourceProcessTest, MalformedUtf8ReachesKafkaAsValidJsonWithReplacementCharacters) {
  std::ofstream(input_, std::ios::binary) << "bad\xff\xfeutf\nok\n";
  auto ksink = startKsink("utf8", "", "org.apache.kafka.connect.json.JsonConverter");
  ASSERT_TRUE(waitUntil([&] { return produced() >= 2; }, 30s)) << ksink->log();
  ASSERT_NO_FATAL_FAILURE(stopGracefully(*ksink));
  const auto records = test::readPartition(RealKafka::shared().bootstrap(), topic_, 0, 2, 30s);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].value, R"({"schema":{"type":"string","optional":false},"payload":"bad)"
                              "\xef\xbf\xbd\xef\xbf\xbd"
                              R"(utf"})");
  EXPECT_EQ(records[1].value, R"({"schema":{"type":"string","optional":false},"payload":"ok"})");
}

TEST_F(FileSourceProcessTest, ASourceAndASinkInOneProcessMoveAFileIntoATable) {
  std::ofstream(input_) << "alpha\nbeta\ngamma\n";
  const auto db = (dir_ / "lines.db").string();
  const auto worker = dir_ / "worker.properties";
  std::ofstream(worker) << fmt::format(
      "bootstrap.servers={}\nexit.on.task.failure=true\noffset.storage.file.filename={}\noffset."
      "flush.interval.ms=500\n"
      "listeners=\nconsumer.session.timeout.ms=6000\n",
      RealKafka::shared().bootstrap(), (dir_ / "connect.offsets").string());
  const auto source = dir_ / "source.properties";
  std::ofstream(source) << fmt::format(
      "name={}-source\nconnector.class=org.apache.kafka.connect.file.FileStreamSourceConnector\n"
      "file={}\ntopic={}\ntransforms=hoist\n"
      "transforms.hoist.type=org.apache.kafka.connect.transforms.HoistField$Value\n"
      "transforms.hoist.field=line\n",
      name_, input_, topic_);
  const auto sink = dir_ / "sink.properties";
  std::ofstream(sink) << fmt::format(
      "name={}-sink\nconnector.class=sqlite\nconnection.url=sqlite://{}\ntopics={}\n"
      "table.name.format=lines\nauto.create=true\n",
      name_, db, topic_);
  ChildProcess ksink({KSINK_BIN, "run", worker.string(), source.string(), sink.string()},
                     dir_ / "mixed.log");
  ASSERT_TRUE(waitUntil(
      [&] {
        try {
          return testing::queryRows(db, "SELECT count(*) FROM lines")[0][0] == "3";
        } catch (const std::exception&) {
          return false;
        }
      },
      60s))
      << ksink.log();
  ASSERT_NO_FATAL_FAILURE(stopGracefully(ksink));
  EXPECT_EQ(testing::queryRows(db, "SELECT line FROM lines ORDER BY line"),
            (testing::Rows{{"alpha"}, {"beta"}, {"gamma"}}));
}

}  // namespace
}  // namespace ksink::it
