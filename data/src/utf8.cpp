#include "ksink/utf8.h"

#include <simdjson.h>

#include <cstdint>

namespace ksink {
namespace {

constexpr std::string_view kReplacement = "\xef\xbf\xbd";

// The length of the well-formed sequence at `at`, or 0 with `malformed` set to how many bytes
// its one U+FFFD stands for. These are the JDK's rules (sun.nio.cs.UTF_8.Decoder: decodeArrayLoop,
// malformedN), which differ from Unicode's "maximal subpart" only for a surrogate: the bytes of a
// sequence up to the first that cannot continue it are one malformed run, and so is what is left
// of a sequence at the end (Java's end-of-input flush), but an encoded surrogate is one run of
// three where Unicode's practice counts three.
size_t sequence(std::string_view text, size_t at, size_t& malformed) {
  const auto byte = [&](size_t i) { return static_cast<uint8_t>(text[at + i]); };
  const uint8_t lead = byte(0);
  if (lead < 0x80) return 1;
  malformed = 1;
  const size_t length = lead >= 0xc2 && lead <= 0xdf   ? 2
                        : lead >= 0xe0 && lead <= 0xef ? 3
                        : lead >= 0xf0 && lead <= 0xf4 ? 4
                                                       : 0;  // C0, C1, F5..FF, a continuation
  if (length == 0) return 0;
  // The second byte's range is narrower where the sequence would be overlong (E0, F0) or above
  // U+10FFFF (F4).
  const uint8_t low = lead == 0xe0 ? 0xa0 : lead == 0xf0 ? 0x90 : 0x80;
  const uint8_t high = lead == 0xf4 ? 0x8f : 0xbf;
  for (size_t i = 1; i < length; ++i) {
    const bool in_range = at + i < text.size() && byte(i) >= (i == 1 ? low : 0x80) &&
                          byte(i) <= (i == 1 ? high : 0xbf);
    if (!in_range) {
      malformed = i;
      return 0;
    }
  }
  if (lead == 0xed && byte(1) >= 0xa0) {  // U+D800..U+DFFF
    malformed = 3;
    return 0;
  }
  return length;
}

}  // namespace

bool replaceMalformedUtf8(std::string& text) {
  if (simdjson::validate_utf8(text.data(), text.size())) return false;
  std::string out;
  out.reserve(text.size() + 8);
  for (size_t at = 0; at < text.size();) {
    size_t malformed = 0;
    if (const size_t n = sequence(text, at, malformed)) {
      out.append(text, at, n);
      at += n;
    } else {
      out += kReplacement;
      at += malformed;
    }
  }
  text = std::move(out);
  return true;
}

}  // namespace ksink
