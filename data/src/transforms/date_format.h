// java.text.SimpleDateFormat's common subset in UTC, for TimestampConverter and
// TimestampRouter. Immutable once compiled: any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ksink::detail {

// A SimpleDateFormat pattern with the letters y M d H m s S, the zone letters X (ISO 8601), Z
// (RFC 822) and z (general; formatted as the zone is always UTC: "Z", "+0000", "UTC"; parsed in
// every form SimpleDateFormat reads for them, the offset applied), quoted literal text ('…', ''
// for a quote) and other non-letter characters as literals; every other pattern letter is
// refused.
class DateFormat {
 public:
  // nullopt and `error` set for a letter outside the subset or an unterminated quote.
  static std::optional<DateFormat> compile(std::string_view pattern, std::string* error);
  std::string format(int64_t epoch_millis) const;
  // Epoch milliseconds, or nullopt when `text` does not match (lenient like Java: out-of-range
  // fields roll over, text after the pattern is ignored).
  std::optional<int64_t> parse(std::string_view text) const;
  const std::string& pattern() const { return pattern_; }

 private:
  struct Token {
    char letter = 0;  // 0: literal
    int count = 0;
    std::string literal;
  };
  std::string pattern_;
  std::vector<Token> tokens_;
};

}  // namespace ksink::detail
