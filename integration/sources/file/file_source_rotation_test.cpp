// ksink's FileStreamSource in `ksink run` processes when its file is rotated: truncated, or renamed
// and created again, while the process runs and while it is stopped. Every line of the old file
// and of the new one reaches the topic exactly once, across graceful restarts too (the offset
// says which content its position is in). Kafka Connect's task reads nothing more in the running
// cases and resumes the new file at the old position in the stopped ones.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <map>

#include "child_process.h"
#include "polling.h"
#include "test_kafka.h"
#include "topic_reader.h"

namespace ksink::it {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

class FileSourceRotationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = freshDir("file-source-rotation");
    topic_ = uniqueName("rotated");
    input_ = (dir_ / "input.txt").string();
    RealKafka::shared().createTopic(topic_, 1);
    const auto worker = dir_ / "worker.properties";
    std::ofstream(worker) << fmt::format(
        "bootstrap.servers={}\noffset.storage.file.filename={}\noffset.flush.interval.ms=500\n"
        "listeners=\n",
        RealKafka::shared().bootstrap(), (dir_ / "connect.offsets").string());
    const auto connector = dir_ / "source.properties";
    std::ofstream(connector) << fmt::format(
        "name={}\nconnector.class=FileStreamSource\nfile={}\ntopic={}\n"
        "value.converter=org.apache.kafka.connect.storage.StringConverter\n",
        uniqueName("rotated-file"), input_, topic_);
    argv_ = {KSINK_BIN, "run", worker.string(), connector.string()};
  }

  // Lines "<prefix><i>" for i in [from, to), appended to `path` (or replacing what it holds).
  static void writeLines(const std::string& path, const std::string& prefix, int from, int to,
                         std::ios::openmode mode = std::ios::app) {
    std::ofstream out(path, mode);
    for (int i = from; i < to; ++i) out << prefix << i << "\n";
  }

  std::unique_ptr<ChildProcess> start(const std::string& tag) {
    auto ksink = std::make_unique<ChildProcess>(argv_, dir_ / (tag + ".log"));
    EXPECT_TRUE(waitUntil([&] { return ksink->log().find("started") != std::string::npos; }, 30s))
        << ksink->log();
    return ksink;
  }
  static void stop(ChildProcess& ksink) {
    ksink.signal(SIGTERM);
    ASSERT_EQ(ksink.wait(20s), 0) << ksink.log();
  }

  int64_t produced() { return RealKafka::shared().endOffset({topic_, 0}); }
  bool reached(int64_t count, ChildProcess& ksink) {
    const bool ok = waitUntil([&] { return produced() >= count; }, 30s);
    if (!ok) ADD_FAILURE() << produced() << " records of " << count << "\n" << ksink.log();
    return ok;
  }

  // Each of the lines "<prefix><i>", i in [0, count) of every (prefix, count), in the topic once,
  // and nothing else.
  void expectEachOnce(const std::map<std::string, int>& lines) {
    std::map<std::string, int> seen;
    for (const auto& r : test::readPartition(RealKafka::shared().bootstrap(), topic_, 0,
                                             static_cast<size_t>(produced()), 30s))
      ++seen[r.value.value_or("<null>")];
    size_t expected = 0;
    for (const auto& [prefix, count] : lines) {
      expected += static_cast<size_t>(count);
      for (int i = 0; i < count; ++i) {
        const auto line = prefix + std::to_string(i);
        EXPECT_EQ(seen.contains(line) ? seen.at(line) : 0, 1) << line;
      }
    }
    EXPECT_EQ(seen.size(), expected) << "lines that were never written";
  }

  fs::path dir_;
  std::string topic_, input_;
  std::vector<std::string> argv_;
};

TEST_F(FileSourceRotationTest, AFileTruncatedWhileRunningIsReadAgainFromItsBeginning) {
  writeLines(input_, "old", 0, 100);
  auto ksink = start("running");
  ASSERT_TRUE(reached(100, *ksink));
  writeLines(input_, "new", 0, 20, std::ios::trunc);  // shorter than what was read
  ASSERT_TRUE(reached(120, *ksink));
  ASSERT_NO_FATAL_FAILURE(stop(*ksink));
  auto again = start("again");  // resumes inside the new content
  writeLines(input_, "new", 20, 30);
  ASSERT_TRUE(reached(130, *again));
  ASSERT_NO_FATAL_FAILURE(stop(*again));
  expectEachOnce({{"old", 100}, {"new", 30}});
}

TEST_F(FileSourceRotationTest, AFileRenamedAndCreatedAgainWhileRunningIsFollowed) {
  writeLines(input_, "old", 0, 100);
  auto ksink = start("running");
  ASSERT_TRUE(reached(100, *ksink));
  fs::rename(input_, input_ + ".1");
  writeLines(input_ + ".1", "old", 100, 110);  // its writer has not moved on yet
  writeLines(input_, "new", 0, 150);
  ASSERT_TRUE(reached(260, *ksink));
  ASSERT_NO_FATAL_FAILURE(stop(*ksink));
  auto again = start("again");
  writeLines(input_, "new", 150, 160);
  ASSERT_TRUE(reached(270, *again));
  ASSERT_NO_FATAL_FAILURE(stop(*again));
  expectEachOnce({{"old", 110}, {"new", 160}});
}

TEST_F(FileSourceRotationTest, AFileTruncatedWhileStoppedIsReadFromItsBeginning) {
  writeLines(input_, "old", 0, 100);
  auto ksink = start("before");
  ASSERT_TRUE(reached(100, *ksink));
  ASSERT_NO_FATAL_FAILURE(stop(*ksink));
  writeLines(input_, "new", 0, 20, std::ios::trunc);
  auto after = start("after");
  ASSERT_TRUE(reached(120, *after));
  ASSERT_NO_FATAL_FAILURE(stop(*after));
  expectEachOnce({{"old", 100}, {"new", 20}});
}

// The new file is longer than the stored position: only the bytes before it tell the files apart.
TEST_F(FileSourceRotationTest, AFileRenamedAndCreatedAgainWhileStoppedIsReadFromItsBeginning) {
  writeLines(input_, "old", 0, 100);
  auto ksink = start("before");
  ASSERT_TRUE(reached(100, *ksink));
  ASSERT_NO_FATAL_FAILURE(stop(*ksink));
  fs::rename(input_, input_ + ".1");
  writeLines(input_, "new", 0, 200);
  auto after = start("after");
  ASSERT_TRUE(reached(300, *after));
  ASSERT_NO_FATAL_FAILURE(stop(*after));
  expectEachOnce({{"old", 100}, {"new", 200}});
}

}  // namespace
}  // namespace ksink::it
