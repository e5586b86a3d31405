// RecordBytes: the batch's copies of the records' bytes.
#include "record_bytes.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ksink {
namespace {

TEST(RecordBytesTest, EveryCopyKeepsItsBytesWhileLaterOnesFillNewChunks) {
  RecordBytes bytes;
  std::vector<std::string> originals;
  std::vector<std::string_view> copies;
  for (int i = 0; i < 5000; ++i) {  // ~1.5 MB: several chunks
    originals.push_back(std::string(static_cast<size_t>(i % 600), static_cast<char>('a' + i % 26)));
    copies.push_back(bytes.copy(originals.back()));
  }
  for (size_t i = 0; i < originals.size(); ++i) {
    ASSERT_EQ(copies[i], originals[i]) << i;
    EXPECT_NE(copies[i].data(), originals[i].data());
  }
}

TEST(RecordBytesTest, ALargeRecordGetsAnAllocationOfItsOwn) {
  RecordBytes bytes;
  const std::string small = "small", large(100 * 1024, 'x');
  const auto a = bytes.copy(small);
  const auto b = bytes.copy(large);
  const auto c = bytes.copy(small);
  EXPECT_EQ(a, small);
  EXPECT_EQ(b, large);
  EXPECT_EQ(c, small);
  EXPECT_EQ(c.data(), a.data() + a.size());  // the small ones share the first chunk
}

TEST(RecordBytesTest, ClearReusesTheChunksForTheNextBatch) {
  RecordBytes bytes;
  const auto first = bytes.copy("first batch");
  for (int i = 0; i < 2000; ++i) bytes.copy(std::string(300, 'y'));
  bytes.clear();
  const auto again = bytes.copy("next batch");
  EXPECT_EQ(again, "next batch");
  EXPECT_EQ(again.data(), first.data());
}

TEST(RecordBytesTest, ABurstOfLargeBatchesDoesNotStayAllocated) {
  RecordBytes bytes;
  const std::string record(60 * 1024, 'b');          // four to a chunk
  for (int i = 0; i < 400; ++i) bytes.copy(record);  // 100 chunks, 25 MiB
  EXPECT_EQ(bytes.capacity(), 100u * 256 * 1024);
  bytes.clear();
  EXPECT_EQ(bytes.capacity(), 8u * 1024 * 1024);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(bytes.copy(record), record);  // fits what is kept
  EXPECT_EQ(bytes.capacity(), 8u * 1024 * 1024);
  bytes.copy(std::string(1024 * 1024, 'L'));
  EXPECT_EQ(bytes.capacity(), 8u * 1024 * 1024 + 1024 * 1024);
  bytes.clear();
  EXPECT_EQ(bytes.capacity(), 8u * 1024 * 1024);
}

TEST(RecordBytesTest, EmptyBytesCopyToAnEmptyView) {
  RecordBytes bytes;
  const auto empty = bytes.copy("");
  EXPECT_TRUE(empty.empty());
  EXPECT_NE(empty.data(), nullptr);
  EXPECT_EQ(bytes.copy("z"), "z");
}

}  // namespace
}  // namespace ksink
