// FileStreamSource's task as Connect's behaves: lines split at \n, \r\n or \r, each a record whose
// source offset is the byte position after it; resumes at the stored position; batch.size lines
// per poll(); a wakeup() ends the wait for data. And where it does better: malformed UTF-8 as
// Java decodes it, and log rotation (truncation, another file at the path) followed while it runs
// and recognised at a restart.
#include "file_stream_source_task.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "ksink/config_exception.h"

namespace ksink {
namespace {

using namespace std::chrono_literals;

class FakeContext final : public SourceTaskContext, public OffsetStorageReader {
 public:
  explicit FakeContext(Config config) : config_(std::move(config)) {}
  const Config& config() const override { return config_; }
  const OffsetStorageReader& offsetStorageReader() const override { return *this; }
  TransactionContext* transactionContext() override { return nullptr; }
  std::optional<SourceMap> offset(const SourceMap& partition) const override {
    asked.push_back(Value::object(partition).toJson());
    return stored;
  }
  std::vector<std::pair<SourceMap, SourceMap>> offsets(
      const std::vector<SourceMap>&) const override {
    return {};
  }
  std::optional<SourceMap> stored;
  mutable std::vector<std::string> asked;

 private:
  Config config_;
};

class FileStreamSourceTaskTest : public ::testing::Test {
 protected:
  FileStreamSourceTaskTest() {
    dir_ = std::filesystem::temp_directory_path() /
           ("ksink-file-source-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    file_ = (dir_ / "input.txt").string();
  }
  ~FileStreamSourceTaskTest() override { std::filesystem::remove_all(dir_); }

  void append(const std::string& text) { std::ofstream(file_, std::ios::app) << text; }

  std::unique_ptr<FakeContext> context(std::map<std::string, std::string> extra = {}) {
    std::map<std::string, std::string> values{{"file", file_}, {"topic", "lines"}};
    for (auto& [k, v] : extra) values.insert_or_assign(k, v);
    return std::make_unique<FakeContext>(Config(values, FileStreamSourceTask::configDef()));
  }

  void start(FakeContext& ctx) {
    task.initialize(ctx);
    task.start(ctx.config());
  }

  // "line@position" for each record.
  static std::vector<std::string> lines(const std::vector<SourceRecord>& records) {
    std::vector<std::string> out;
    for (const auto& r : records)
      out.push_back(r.value().asString() + "@" +
                    std::to_string(r.sourceOffset()->at(0).second.asInt()));
    return out;
  }

  std::filesystem::path dir_;
  std::string file_;
  FileStreamSourceTask task;
};

TEST_F(FileStreamSourceTaskTest, EachLineIsARecordWhoseOffsetIsTheBytePositionAfterIt) {
  append("a\nbb\r\nccc\rd");
  auto ctx = context();
  start(*ctx);
  EXPECT_EQ(lines(task.poll()), (std::vector<std::string>{"a@2", "bb@6", "ccc@10"}));
  append("\n");
  EXPECT_EQ(lines(task.poll()), (std::vector<std::string>{"d@12"}));
}

TEST_F(FileStreamSourceTaskTest, ACarriageReturnLastInTheFileWaitsForTheByteAfterIt) {
  append("a\r");
  auto ctx = context();
  start(*ctx);
  ctx->asked.clear();
  task.wakeup();  // the empty poll's wait returns at once
  EXPECT_TRUE(task.poll().empty());
  append("\nb\n");
  EXPECT_EQ(lines(task.poll()), (std::vector<std::string>{"a@3", "b@5"}));
}

TEST_F(FileStreamSourceTaskTest, RecordsCarryConnectsPartitionTopicAndAStringValue) {
  append("héllo\n");
  auto ctx = context();
  start(*ctx);
  const auto records = task.poll();
  ASSERT_EQ(records.size(), 1u);
  const auto& r = records[0];
  EXPECT_EQ(Value::object(*r.sourcePartition()).toJson(), R"({"filename":")" + file_ + R"("})");
  ASSERT_EQ(r.sourceOffset()->size(), 2u);
  EXPECT_EQ(r.sourceOffset()->at(0).first, "position") << "Connect's key, first";
  EXPECT_EQ(r.sourceOffset()->at(0).second.asInt(), 7) << "bytes, not chars";
  EXPECT_EQ(r.sourceOffset()->at(1).first, "fingerprint") << "ksink's, which Connect ignores";
  EXPECT_EQ(r.topic(), "lines");
  EXPECT_FALSE(r.kafkaPartition());
  EXPECT_TRUE(r.key().isNull());
  EXPECT_EQ(r.keySchema(), nullptr);
  ASSERT_NE(r.valueSchema(), nullptr);
  EXPECT_EQ(r.valueSchema()->type, Schema::Type::kString);
  EXPECT_FALSE(r.valueSchema()->optional);
  EXPECT_TRUE(r.timestamp());
}

// Connect decodes the file as UTF-8 with Java's replacement: one U+FFFD per malformed sequence, as
// Java 17 prints them (a truncated sequence, a lone continuation byte, an encoded surrogate, an
// overlong form). Positions still count the file's bytes.
TEST_F(FileStreamSourceTaskTest, MalformedUtf8BecomesTheReplacementCharacterAsJavaDecodesIt) {
  append("bad\xff\xfeutf\n\xe2\x82\n\xed\xa0\x80x\n\xc0\xaf\n\xf0\x9f\x98\xa9\n");
  auto ctx = context();
  start(*ctx);
  const std::string r = "\xef\xbf\xbd";  // U+FFFD
  EXPECT_EQ(lines(task.poll()),
            (std::vector<std::string>{"bad" + r + r + "utf@9", r + "@12", r + "x@17", r + r + "@20",
                                      "\xf0\x9f\x98\xa9@25"}));
}

TEST_F(FileStreamSourceTaskTest, ItResumesAtTheStoredPosition) {
  append("one\ntwo\nthree\n");
  auto ctx = context();
  ctx->stored = SourceMap{{"position", Value::integer(8)}};
  start(*ctx);
  EXPECT_EQ(ctx->asked, (std::vector<std::string>{R"({"filename":")" + file_ + R"("})"}));
  EXPECT_EQ(lines(task.poll()), (std::vector<std::string>{"three@14"}));
}

// --- rotation: the file truncated, or another file put at its path ---

TEST_F(FileStreamSourceTaskTest, AFileTruncatedWhileReadIsReadAgainFromItsBeginning) {
  append("one\ntwo\n");
  auto ctx = context();
  start(*ctx);
  EXPECT_EQ(lines(task.poll()), (std::vector<std::string>{"one@4", "two@8"}));
  std::filesystem::resize_file(file_, 0);
  append("x\n");
  EXPECT_EQ(lines(task.poll()), (std::vector<std::string>{"x@2"}));
  append("y\n");
  EXPECT_EQ(lines(task.poll()), (std::vector<std::string>{"y@4"}));
}

// The old file is read to its end (a line its writer still added, and its last line even without
// a line end), then the new file from its beginning.
TEST_F(FileStreamSourceTaskTest,
       AFileReplacedWhileReadIsFinishedThenTheNewOneReadFromItsBeginning) {
  append("old1\n");
  auto ctx = context();
  start(*ctx);
  EXPECT_EQ(lines(task.poll()), (std::vector<std::string>{"old1@5"}));
  append("old2\nunended");
  std::filesystem::rename(file_, file_ + ".1");
  append("new1\nnew2\n");
  EXPECT_EQ(lines(task.poll()),
            (std::vector<std::string>{"old2@10", "unended@17", "new1@5", "new2@10"}));
}

TEST_F(FileStreamSourceTaskTest, AnEmptyNewFileIsNotFollowedUntilItHasData) {
  append("old1\n");
  auto ctx = context();
  start(*ctx);
  EXPECT_EQ(lines(task.poll()), (std::vector<std::string>{"old1@5"}));
  std::filesystem::rename(file_, file_ + ".1");
  append("");
  std::ofstream(file_ + ".1", std::ios::app) << "old2\n";  // its writer has not reopened yet
  task.wakeup();
  EXPECT_EQ(lines(task.poll()), (std::vector<std::string>{"old2@10"}));
  append("new1\n");
  EXPECT_EQ(lines(task.poll()), (std::vector<std::string>{"new1@5"}));
}

// The offset of a line read before the stop, and the file as it is at the restart.
class FileStreamSourceTaskRestartTest : public FileStreamSourceTaskTest {
 protected:
  SourceMap offsetAfterReading(const std::string& text) {
    append(text);
    FileStreamSourceTask first;
    auto ctx = context();
    first.initialize(*ctx);
    first.start(ctx->config());
    const auto records = first.poll();
    first.stop();
    if (records.empty()) throw std::runtime_error("the task read no line of: " + text);
    return *records.back().sourceOffset();
  }
};

TEST_F(FileStreamSourceTaskRestartTest, ItResumesAtItsOwnOffsetInTheSameFile) {
  const auto offset = offsetAfterReading("one\ntwo\n");
  append("three\n");
  auto ctx = context();
  ctx->stored = offset;
  start(*ctx);
  EXPECT_EQ(lines(task.poll()), (std::vector<std::string>{"three@14"}));
}

TEST_F(FileStreamSourceTaskRestartTest, AFileTruncatedWhileStoppedIsReadFromItsBeginning) {
  const auto offset = offsetAfterReading("one\ntwo\nthree\n");
  std::filesystem::resize_file(file_, 0);
  append("x\n");
  auto ctx = context();
  ctx->stored = offset;
  start(*ctx);
  EXPECT_EQ(lines(task.poll()), (std::vector<std::string>{"x@2"}));
}

// Longer than the stored position, so only what was before the position tells it apart.
TEST_F(FileStreamSourceTaskRestartTest, AFileReplacedWhileStoppedIsReadFromItsBeginning) {
  const auto offset = offsetAfterReading("one\ntwo\n");
  std::filesystem::rename(file_, file_ + ".1");
  append("eins\nzwei\ndrei\n");
  auto ctx = context();
  ctx->stored = offset;
  start(*ctx);
  EXPECT_EQ(lines(task.poll()), (std::vector<std::string>{"eins@5", "zwei@10", "drei@15"}));
}

TEST_F(FileStreamSourceTaskRestartTest, AStoredPositionPastTheEndOfTheFileStartsItOver) {
  append("x\n");
  auto ctx = context();
  ctx->stored = SourceMap{{"position", Value::integer(100)}};  // Connect's form: no fingerprint
  start(*ctx);
  EXPECT_EQ(lines(task.poll()), (std::vector<std::string>{"x@2"}));
}

TEST_F(FileStreamSourceTaskTest, AStoredPositionThatIsNotAWholeNumberFailsTheStart) {
  auto ctx = context();
  ctx->stored = SourceMap{{"position", Value::string("8")}};
  task.initialize(*ctx);
  EXPECT_THROW(task.start(ctx->config()), std::runtime_error);
}

TEST_F(FileStreamSourceTaskTest, BatchSizeBoundsEachPoll) {
  for (int i = 0; i < 5; ++i) append(std::to_string(i) + "\n");
  auto ctx = context({{"batch.size", "2"}});
  start(*ctx);
  EXPECT_EQ(lines(task.poll()), (std::vector<std::string>{"0@2", "1@4"}));
  EXPECT_EQ(lines(task.poll()), (std::vector<std::string>{"2@6", "3@8"}));
  EXPECT_EQ(lines(task.poll()), (std::vector<std::string>{"4@10"}));
}

TEST_F(FileStreamSourceTaskTest, AWakeupEndsTheWaitForData) {
  append("");
  auto ctx = context();
  start(*ctx);
  std::thread waker([&] {
    std::this_thread::sleep_for(100ms);
    task.wakeup();
  });
  const auto begin = std::chrono::steady_clock::now();
  EXPECT_TRUE(task.poll().empty());
  EXPECT_LT(std::chrono::steady_clock::now() - begin, 800ms);
  waker.join();
}

TEST_F(FileStreamSourceTaskTest, AMissingFileIsWaitedFor) {
  auto ctx = context();
  start(*ctx);
  task.wakeup();
  EXPECT_TRUE(task.poll().empty());
  append("late\n");
  EXPECT_EQ(lines(task.poll()), (std::vector<std::string>{"late@5"}));
}

TEST_F(FileStreamSourceTaskTest, MoreThanOneTaskAndAnEmptyFileAreRefused) {
  const auto problems = FileStreamSourceTask::configDef().validate(
      {{"file", ""}, {"topic", "t"}, {"tasks.max", "2"}});
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0].key, "file");
  EXPECT_EQ(problems[1].key, "tasks.max");
}

}  // namespace
}  // namespace ksink
