// COPY encodings: the binary format's bytes, the text format's escapes. (That the server accepts
// them is checked against a real PostgreSQL in integration/sinks/postgres/postgres_sink_test.cpp.)
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "copy_binary_writer.h"
#include "copy_text_writer.h"

namespace ksink::postgres {
namespace {

constexpr size_t kHeader = 19;  // signature (11) + flags (4) + extension length (4)

std::vector<int> bytesAfterHeader(const CopyBinaryWriter& w) {
  std::vector<int> out;
  for (size_t i = kHeader; i < w.buffer().size(); ++i)
    out.push_back(static_cast<unsigned char>(w.buffer()[i]));
  return out;
}

// The numeric field written for `text`: {ndigits, weight, sign, dscale, digits...}.
std::vector<int> numericOf(std::string_view text) {
  CopyBinaryWriter w;
  EXPECT_TRUE(w.numeric(text)) << text;
  const auto b = bytesAfterHeader(w);
  std::vector<int> words;
  for (size_t i = 4; i + 1 < b.size(); i += 2) {
    const int v = b[i] << 8 | b[i + 1];
    words.push_back(v >= 0x8000 && words.size() == 1 ? v - 0x10000 : v);  // weight is signed
  }
  return words;
}

TEST(CopyBinaryWriter, StartsWithTheSignatureAndEndsWithTheTrailer) {
  CopyBinaryWriter w;
  const std::string header("PGCOPY\n\377\r\n\0\0\0\0\0\0\0\0\0", kHeader);
  EXPECT_EQ(w.buffer(), header);
  w.finish();
  EXPECT_EQ(bytesAfterHeader(w), (std::vector<int>{0xFF, 0xFF}));
}

TEST(CopyBinaryWriter, RowsAreFieldCountThenLengthPrefixedBigEndianFields) {
  CopyBinaryWriter w;
  w.beginRow(4);
  w.int4(0x01020304);
  w.null();
  w.boolean(true);
  w.bytes("hi");
  EXPECT_EQ(bytesAfterHeader(w),
            (std::vector<int>{0,    4, 0, 0, 0, 4, 1, 2, 3, 4, 0xFF, 0xFF, 0xFF,
                              0xFF, 0, 0, 0, 1, 1, 0, 0, 0, 2, 'h',  'i'}));
}

TEST(CopyBinaryWriter, DatesAndTimestampsCountFromTheYear2000) {
  CopyBinaryWriter w;
  w.date(10957);  // 2000-01-01
  w.timestamp(946684800000000 + 1);
  EXPECT_EQ(bytesAfterHeader(w),
            (std::vector<int>{0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 1}));
}

TEST(CopyBinaryWriter, NumericIsBase10000DigitsWithWeightAndScale) {
  // {ndigits, weight, sign, dscale, digits...}
  EXPECT_EQ(numericOf("123.45"), (std::vector<int>{2, 0, 0, 2, 123, 4500}));
  EXPECT_EQ(numericOf("-12345678.9"), (std::vector<int>{3, 1, 0x4000, 1, 1234, 5678, 9000}));
  EXPECT_EQ(numericOf("0.0015"), (std::vector<int>{1, -1, 0, 4, 15}));
  EXPECT_EQ(numericOf("1e-6"), (std::vector<int>{1, -2, 0, 6, 100}));
  EXPECT_EQ(numericOf("1e+20"), (std::vector<int>{1, 5, 0, 0, 1}));
  EXPECT_EQ(numericOf("10000"), (std::vector<int>{1, 1, 0, 0, 1}));
  EXPECT_EQ(numericOf("0"), (std::vector<int>{0, 0, 0, 0}));
  EXPECT_EQ(numericOf("-0.00"), (std::vector<int>{0, 0, 0, 2}));
  EXPECT_EQ(numericOf("NaN"), (std::vector<int>{0, 0, 0xC000, 0}));
}

TEST(CopyBinaryWriter, MalformedNumericsAndUuidsAreLeftToTheTextFormat) {
  CopyBinaryWriter w;
  const size_t before = w.size();
  EXPECT_FALSE(w.numeric(""));
  EXPECT_FALSE(w.numeric("1.2.3"));
  EXPECT_FALSE(w.numeric("abc"));
  EXPECT_FALSE(w.numeric("1e"));
  EXPECT_FALSE(w.uuid("not-a-uuid"));
  EXPECT_FALSE(w.uuid("123e4567-e89b-12d3-a456-42661417400g"));
  EXPECT_FALSE(w.uuid("123e4567e89b-12d3-a456-426614174000-"));
  EXPECT_EQ(w.size(), before);
}

TEST(CopyBinaryWriter, UuidsInCanonicalBareOrBracedForm) {
  for (const char* text :
       {"123e4567-e89b-12d3-a456-426614174000", "123E4567E89B12D3A456426614174000",
        "{123e4567-e89b-12d3-a456-426614174000}"}) {
    CopyBinaryWriter w;
    ASSERT_TRUE(w.uuid(text)) << text;
    const auto b = bytesAfterHeader(w);
    ASSERT_EQ(b.size(), 20u);
    EXPECT_EQ(b[4], 0x12);
    EXPECT_EQ(b[19], 0x00);
    EXPECT_EQ(b[10], 0x12);  // 12d3
  }
}

TEST(CopyBinaryWriter, ArraysCarryDimensionsElementTypeAndTheirLength) {
  CopyBinaryWriter w;
  w.beginArray(23, 2, true);
  w.int4(7);
  w.null();
  w.endArray();
  EXPECT_EQ(bytesAfterHeader(w),
            (std::vector<int>{0, 0, 0, 32,  // field length
                              0, 0, 0, 1,   // one dimension
                              0, 0, 0, 1,   // has nulls
                              0, 0, 0, 23,  // int4
                              0, 0, 0, 2,   // two elements
                              0, 0, 0, 1,   // lower bound
                              0, 0, 0, 4,  0, 0, 0, 7, 0xFF, 0xFF, 0xFF, 0xFF}));
  CopyBinaryWriter empty;
  empty.beginArray(25, 0, false);
  empty.endArray();
  EXPECT_EQ(bytesAfterHeader(empty),
            (std::vector<int>{0, 0, 0, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 25}));
}

TEST(CopyBinaryWriter, JsonbIsVersionOneThenTheText) {
  CopyBinaryWriter w;
  w.jsonb("{}");
  EXPECT_EQ(bytesAfterHeader(w), (std::vector<int>{0, 0, 0, 3, 1, '{', '}'}));
}

TEST(CopyTextWriter, EscapesBackslashTabNewlineAndCarriageReturn) {
  CopyTextWriter w;
  w.beginRow();
  w.text("a\tb\nc\rd\\e");
  w.null();
  w.text("");
  w.endRow();
  EXPECT_EQ(w.buffer(), "a\\tb\\nc\\rd\\\\e\t\\N\t\n");
}

TEST(CopyTextWriter, ByteaIsHexWithAnEscapedPrefix) {
  CopyTextWriter w;
  w.beginRow();
  w.bytea(std::string("\x00\xff", 2));
  w.endRow();
  EXPECT_EQ(w.buffer(), "\\\\x00ff\n");
}

TEST(CopyTextWriter, ArrayLiteralsQuoteEveryElement) {
  const std::vector<std::optional<std::string>> items{"a", std::nullopt, "say \"hi\"",
                                                      "back\\slash"};
  EXPECT_EQ(CopyTextWriter::arrayLiteral(items), R"({"a",NULL,"say \"hi\"","back\\slash"})");
  EXPECT_EQ(CopyTextWriter::arrayLiteral({}), "{}");
}

}  // namespace
}  // namespace ksink::postgres
