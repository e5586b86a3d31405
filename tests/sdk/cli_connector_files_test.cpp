// `ksink run` and `validate` given directories of connector files, as a systemd unit names
// /etc/ksink/connectors.d (systemd expands no globs). No broker.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "command_output.h"

namespace {

namespace fs = std::filesystem;

ksink::test::CommandResult runKsink(const std::string& args) {
  return ksink::test::runCommand(fmt::format("'{}' {}", KSINK_JSONL_BIN, args));
}

class CliConnectorFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           fmt::format("ksink-cli-dirs-{}-{}", ::getpid(),
                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    std::ofstream(dir_ / "worker.properties") << "bootstrap.servers=127.0.0.1:1\n";
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

// A unit's ExecStart names a directory (systemd expands no globs): its *.properties files, in name
// order; hidden files and others left out.
TEST_F(CliConnectorFilesTest, ADirectoryOfConnectorFilesIsReadInNameOrderSkippingOthers) {
  const auto d = dir_ / "connectors.d";
  fs::create_directories(d);
  for (const char* name : {"b.properties", "a.properties", ".c.properties", "d.txt"})
    std::ofstream(d / name) << fmt::format(
        "name={}\nconnector.class=jsonl-file\nfile=/tmp/x\n"
        "topics=a\n",
        name);
  auto r = runKsink(
      fmt::format("validate '{}' '{}'", (dir_ / "worker.properties").string(), d.string()));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const auto a = r.output.find("a.properties: ok"), b = r.output.find("b.properties: ok");
  ASSERT_NE(a, std::string::npos) << r.output;
  ASSERT_NE(b, std::string::npos) << r.output;
  EXPECT_LT(a, b) << r.output;
  EXPECT_EQ(r.output.find(".c.properties"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("d.txt"), std::string::npos) << r.output;
}

TEST_F(CliConnectorFilesTest, ValidateOfAnEmptyDirectoryChecksTheWorkerFileAlone) {
  fs::create_directories(dir_ / "empty.d");
  auto ok = runKsink(fmt::format("validate '{}' '{}'", (dir_ / "worker.properties").string(),
                                 (dir_ / "empty.d").string()));
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  std::ofstream(dir_ / "worker.properties", std::ios::app) << "log.format=xml\n";
  auto bad = runKsink(fmt::format("validate '{}'", (dir_ / "worker.properties").string()));
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("log.format"), std::string::npos) << bad.output;
}

}  // namespace
