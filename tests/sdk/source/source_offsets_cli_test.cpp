// `ksink offsets` for a source connector on Connect standalone's offsets file, through the stock
// binary: the list in Kafka Connect's GET /connectors/<name>/offsets shape, --set with its PATCH
// body, --reset as its DELETE, each read back; changes refused while another process holds the
// file, the list served; a bad body refused naming --set. No broker: the file store needs none.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>

#include "command_output.h"
#include "file_offset_store.h"

namespace ksink {
namespace {

namespace fs = std::filesystem;

test::CommandResult run(const std::string& args) {
  return test::runCommand(fmt::format("'{}' {}", KSINK_BIN, args));
}

class SourceOffsetsCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           fmt::format("ksink-source-offsets-{}-{}", ::getpid(),
                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::ofstream(dir_ / "worker.properties")
        << "bootstrap.servers=127.0.0.1:1\noffset.storage.file.filename=" << offsets() << "\n";
    std::ofstream(dir_ / "source.properties")
        << "name=files\nconnector.class=FileStreamSource\nfile=/data/in.txt\ntopic=lines\n";
    FileOffsetStore store(offsets());
    store.start();
    store.write({{R"(["files",{"filename":"/data/in.txt"}])", R"({"position":42})"},
                 {R"(["other",{"filename":"/data/in.txt"}])", R"({"position":7})"}},
                [](const auto&) {});
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string offsets() const { return (dir_ / "connect.offsets").string(); }
  std::string command(const std::string& extra = "") const {
    return fmt::format("offsets '{}' '{}' {}", (dir_ / "worker.properties").string(),
                       (dir_ / "source.properties").string(), extra);
  }

  fs::path dir_;
};

TEST_F(SourceOffsetsCliTest, ListsTheConnectorsOffsetsInConnectsShape) {
  const auto r = run(command());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // The last line (log lines may come before it).
  const auto last = r.output.substr(r.output.rfind('\n', r.output.size() - 2) + 1);
  EXPECT_EQ(last,
            R"({"offsets":[{"partition":{"filename":"/data/in.txt"},"offset":{"position":42}}]})"
            "\n");
}

TEST_F(SourceOffsetsCliTest, SetWritesThePatchBodysOffsetsAndResetForgetsThem) {
  const auto set = run(command(
      R"(--set '{"offsets":[{"partition":{"filename":"/data/in.txt"},"offset":{"position":6}},)"
      R"({"partition":{"filename":"/data/new.txt"},"offset":{"position":1}}]}')"));
  ASSERT_EQ(set.exit_code, 0) << set.output;
  {
    FileOffsetStore after_set(offsets());
    after_set.start();
    EXPECT_EQ(after_set.get(R"(["files",{"filename":"/data/in.txt"}])"), R"({"position":6})");
    EXPECT_EQ(after_set.get(R"(["files",{"filename":"/data/new.txt"}])"), R"({"position":1})");
    EXPECT_EQ(after_set.get(R"(["other",{"filename":"/data/in.txt"}])"), R"({"position":7})")
        << "another connector's offsets stay";
  }

  const auto reset = run(command("--reset"));
  ASSERT_EQ(reset.exit_code, 0) << reset.output;
  EXPECT_NE(reset.output.find(R"({"offsets":[]})"), std::string::npos) << reset.output;
  FileOffsetStore after_reset(offsets());
  after_reset.start();
  EXPECT_EQ(after_reset.get(R"(["files",{"filename":"/data/in.txt"}])"), std::nullopt);
  EXPECT_EQ(after_reset.get(R"(["other",{"filename":"/data/in.txt"}])"), R"({"position":7})");
}

TEST_F(SourceOffsetsCliTest, ANullOffsetResetsThatPartitionOnly) {
  const auto r = run(
      command(R"(--set '{"offsets":[{"partition":{"filename":"/data/in.txt"},"offset":null}]}')"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(R"({"offsets":[]})"), std::string::npos) << r.output;
}

TEST_F(SourceOffsetsCliTest, AChangeIsRefusedWhileAnotherProcessHoldsTheFile) {
  FileOffsetStore running(offsets());
  running.start();
  const auto r = run(command("--reset"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("in use by another process"), std::string::npos) << r.output;
  EXPECT_EQ(running.get(R"(["files",{"filename":"/data/in.txt"}])"), R"({"position":42})");
}

// Listing changes nothing, and the file is only ever replaced whole: no need to stop the connector
// (Connect's GET serves a running one too).
TEST_F(SourceOffsetsCliTest, ListingIsServedWhileAnotherProcessHoldsTheFile) {
  FileOffsetStore running(offsets());
  running.start();
  const auto r = run(command());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(
      r.output.find(
          R"({"offsets":[{"partition":{"filename":"/data/in.txt"},"offset":{"position":42}}]})"),
      std::string::npos)
      << r.output;
}

TEST_F(SourceOffsetsCliTest, ABadBodyIsRefusedNamingSet) {
  const auto r =
      run(command(R"(--set '{"offsets":[{"partition":{"filename":["x"]},"offset":{}}]}')"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--set: offsets[0].partition.filename must be a primitive value"),
            std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace ksink
