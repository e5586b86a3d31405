// replaceMalformedUtf8 against what Java 17 gives for the same bytes (`new String(bytes, UTF_8)`
// and an InputStreamReader agree on each): one U+FFFD per malformed sequence, as Java counts them.
// When it was written it also matched Java on 400,000 random strings of up to 24 bytes drawn mostly
// from the lead and continuation bytes at the edges of UTF-8's ranges.
#include "ksink/utf8.h"

#include <gtest/gtest.h>

namespace ksink {
namespace {

std::string repaired(std::string text) {
  replaceMalformedUtf8(text);
  return text;
}

constexpr std::string_view R = "\xef\xbf\xbd";  // U+FFFD

std::string r(int times) {
  std::string out;
  for (int i = 0; i < times; ++i) out += R;
  return out;
}

TEST(Utf8Test, ValidTextIsLeftAsItIs) {
  std::string text = "h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\xa9 \xef\xbf\xbd";
  const std::string before = text;
  EXPECT_FALSE(replaceMalformedUtf8(text));
  EXPECT_EQ(text, before);
}

TEST(Utf8Test, EachMalformedSequenceIsOneReplacementAsJavaDecodesIt) {
  EXPECT_EQ(repaired("bad\xff\xfeutf"), "bad" + r(2) + "utf");
  EXPECT_EQ(repaired("\x80"), r(1)) << "a lone continuation byte";
  EXPECT_EQ(repaired("\xbf\xbf"), r(2));
  EXPECT_EQ(repaired("\xc0\xaf"), r(2)) << "overlong: C0 starts nothing";
  EXPECT_EQ(repaired("\xe0\x80\x80"), r(3)) << "overlong three bytes: each alone";
  EXPECT_EQ(repaired("\xf0\x8f"), r(2)) << "overlong four bytes";
  EXPECT_EQ(repaired("\xf4\x90\x80\x80"), r(4)) << "above U+10FFFF";
  EXPECT_EQ(repaired("\xf5"), r(1));
  EXPECT_EQ(repaired("\xf8\x88\x80\x80\x80"), r(5)) << "five-byte forms are no UTF-8";
  EXPECT_EQ(repaired("\xed\xa0\x80"), r(1)) << "a surrogate: one for its three bytes";
  EXPECT_EQ(repaired("\xed\xbf\xbf"), r(1));
}

TEST(Utf8Test, ASequenceCutShortIsOneReplacementForTheBytesThatCouldContinue) {
  EXPECT_EQ(repaired("\xe2\x82"), r(1)) << "cut by the end";
  EXPECT_EQ(repaired("\xf0\x9f\x98"), r(1));
  EXPECT_EQ(repaired("\xed\xa0"), r(1));
  EXPECT_EQ(repaired("\xe2\x82\nA"), r(1) + "\nA") << "cut by a line end";
  EXPECT_EQ(repaired("\xe2(\xa1"), r(1) + "(" + r(1));
  EXPECT_EQ(repaired("\xf0(\x8c\xbc"), r(1) + "(" + r(2));
  EXPECT_EQ(repaired("\xc3("), r(1) + "(");
}

}  // namespace
}  // namespace ksink
