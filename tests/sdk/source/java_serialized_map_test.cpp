// Connect standalone's offsets file: a Java-serialized HashMap<byte[],byte[]>. The vectors below
// are what Java 17's ObjectOutputStream.writeObject wrote for such maps (FileOffsetBackingStore's
// save() in Kafka Connect does exactly that); the second entry of the first is a reset offset (a
// null value).
#include "java_serialized_map.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "file_offset_store.h"

namespace ksink {
namespace {

std::string unhex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  return out;
}

const std::string kJavaTwoEntries = unhex(
    "aced0005737200116a6176612e7574696c2e486173684d61700507dac1c31660d103000246000a6c6f6164466163"
    "746f724900097468726573686f6c6478703f4000000000000c77080000001000000002757200025b42acf317f806"
    "0854e002000078700000002a5b2266696c652d736f75726365222c7b2266696c656e616d65223a222f746d702f69"
    "6e2e747874227d5d7571007e00020000000f7b22706f736974696f6e223a34327d7571007e0002000000115b226f"
    "74686572222c7b2261223a317d5d7078");
const std::string kJavaOneEntry = unhex(
    "aced0005737200116a6176612e7574696c2e486173684d61700507dac1c31660d103000246000a6c6f6164466163"
    "746f724900097468726573686f6c6478703f4000000000000c77080000001000000001757200025b42acf317f806"
    "0854e002000078700000000f5b2263222c7b2270223a2278227d5d7571007e0002000000077b226f223a317d78");

TEST(JavaSerializedMapTest, ReadsWhatJavaWroteNullValuesIncluded) {
  const auto map = readJavaSerializedMap(kJavaTwoEntries);
  EXPECT_EQ(map, (JavaByteArrayMap{
                     {R"(["file-source",{"filename":"/tmp/in.txt"}])", R"({"position":42})"},
                     {R"(["other",{"a":1}])", std::nullopt}}));
}

TEST(JavaSerializedMapTest, WritesTheBytesJavaWrites) {
  EXPECT_EQ(writeJavaSerializedMap({{R"(["c",{"p":"x"}])", R"({"o":1})"}}), kJavaOneEntry);
}

TEST(JavaSerializedMapTest, WhatItWritesReadsBackAsManyEntriesGrowTheTable) {
  JavaByteArrayMap map;
  for (int i = 0; i < 100; ++i)
    map[R"(["c",{"p":)" + std::to_string(i) + "}]"] =
        i % 7 == 0 ? std::nullopt : std::optional<std::string>(std::to_string(i));
  EXPECT_EQ(readJavaSerializedMap(writeJavaSerializedMap(map)), map);
  EXPECT_EQ(readJavaSerializedMap(writeJavaSerializedMap({})), JavaByteArrayMap{});
}

TEST(JavaSerializedMapTest, ATruncatedOrForeignStreamIsRefusedWithTheReason) {
  try {
    readJavaSerializedMap(kJavaOneEntry.substr(0, kJavaOneEntry.size() - 5));
    FAIL() << "accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
  }
  EXPECT_THROW(readJavaSerializedMap("{\"position\":1}"), std::runtime_error);
}

class FileOffsetStoreTest : public ::testing::Test {
 protected:
  FileOffsetStoreTest() {
    dir_ = std::filesystem::temp_directory_path() /
           ("ksink-offsets-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  ~FileOffsetStoreTest() override { std::filesystem::remove_all(dir_); }
  std::string path() const { return (dir_ / "connect.offsets").string(); }
  std::filesystem::path dir_;
};

TEST_F(FileOffsetStoreTest, WritesAreDurableReadableByANewStoreAndLeaveNoTemporaryFile) {
  {
    FileOffsetStore store(path());
    store.start();
    std::optional<std::string> error = "not called";
    store.write({{"k1", "v1"}, {"k2", std::nullopt}}, [&](const auto& e) { error = e; });
    EXPECT_EQ(error, std::nullopt);
    store.write({{"k1", "v2"}}, [](const auto&) {});
  }
  FileOffsetStore reread(path());
  reread.start();
  EXPECT_EQ(reread.get("k1"), "v2");
  EXPECT_EQ(reread.get("k2"), std::nullopt);
  EXPECT_EQ(reread.keys(), std::vector<std::string>{"k1"});
  std::vector<std::string> files;
  for (const auto& f : std::filesystem::directory_iterator(dir_))
    files.push_back(f.path().filename().string());
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, (std::vector<std::string>{"connect.offsets", "connect.offsets.lock"}))
      << "no temporary file left";
}

TEST_F(FileOffsetStoreTest, AFileJavaWroteIsReadAndKeepsItsResetEntriesWhenRewritten) {
  std::ofstream(path(), std::ios::binary) << kJavaTwoEntries;
  FileOffsetStore store(path());
  store.start();
  EXPECT_EQ(store.get(R"(["file-source",{"filename":"/tmp/in.txt"}])"), R"({"position":42})");
  store.write({{R"(["file-source",{"filename":"/tmp/in.txt"}])", R"({"position":50})"}},
              [](const auto&) {});
  std::ifstream in(path(), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(
      readJavaSerializedMap(bytes),
      (JavaByteArrayMap{{R"(["file-source",{"filename":"/tmp/in.txt"}])", R"({"position":50})"},
                        {R"(["other",{"a":1}])", std::nullopt}}));
}

TEST_F(FileOffsetStoreTest, AnUnreadableFileStopsTheStartNamingIt) {
  std::ofstream(path(), std::ios::binary) << "not a java stream";
  FileOffsetStore store(path());
  try {
    store.start();
    FAIL() << "started";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path()), std::string::npos) << e.what();
  }
}

// ksink writes the file whole and Connect never writes an empty map as 0 bytes: an empty file is
// one whose offsets were lost (Connect stopped while rewriting it in place), not "none yet".
TEST_F(FileOffsetStoreTest, AnEmptyFileStopsTheStartNamingItAndWhatToDo) {
  std::ofstream(path()).close();
  FileOffsetStore store(path());
  try {
    store.start();
    FAIL() << "started as if there were no offsets yet";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path() + " (offset.storage.file.filename) is empty"), std::string::npos)
        << what;
    EXPECT_NE(what.find("remove it"), std::string::npos) << what;
  }
  EXPECT_EQ(std::filesystem::file_size(path()), 0u) << "left as it was";
}

TEST_F(FileOffsetStoreTest, AMissingFileMeansNoOffsetsYet) {
  FileOffsetStore store(path());
  store.start();
  EXPECT_TRUE(store.keys().empty());
}

TEST_F(FileOffsetStoreTest, ASecondStoreOnAFileInUseIsRefusedUntilTheFirstIsGone) {
  auto first = std::make_unique<FileOffsetStore>(path());
  first->start();
  FileOffsetStore second(path());
  try {
    second.start();
    FAIL() << "started";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("in use by another process"), std::string::npos)
        << e.what();
  }
  first.reset();
  FileOffsetStore third(path());
  EXPECT_NO_THROW(third.start());
}

TEST_F(FileOffsetStoreTest, TasksNamingOneFileShareOneStore) {
  EXPECT_EQ(FileOffsetStore::forFile(path()),
            FileOffsetStore::forFile(dir_.string() + "/./connect.offsets"));
}

}  // namespace
}  // namespace ksink
