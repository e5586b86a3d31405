#include "sql_time.h"

#include <fmt/format.h>

#include <stdexcept>

#include "ksink/civil_date.h"
#include "ksink/value.h"

namespace ksink::jdbc {
namespace {

// A cursor over the text, reading fixed-width digit groups.
struct Reader {
  std::string_view text;
  size_t at = 0;

  bool done() const { return at >= text.size(); }
  char peek() const { return done() ? '\0' : text[at]; }
  bool take(char c) {
    if (peek() != c) return false;
    ++at;
    return true;
  }
  int64_t digits(size_t n) {
    int64_t v = 0;
    for (size_t i = 0; i < n; ++i, ++at) {
      if (done() || text[at] < '0' || text[at] > '9') fail();
      v = v * 10 + (text[at] - '0');
    }
    return v;
  }
  // At least one digit, as many as there are (a year past 9999).
  int64_t number() {
    const size_t start = at;
    int64_t v = 0;
    while (!done() && text[at] >= '0' && text[at] <= '9' && at - start < 12)
      v = v * 10 + (text[at++] - '0');
    if (at == start) fail();
    return v;
  }
  [[noreturn]] void fail() const {
    throw std::invalid_argument(fmt::format("'{}' is not a date/time the source reads", text));
  }
};

int64_t readDate(Reader& r) {
  const int64_t year = r.number();
  if (!r.take('-')) r.fail();
  const int64_t month = r.digits(2);
  if (!r.take('-')) r.fail();
  const int64_t day = r.digits(2);
  if (month < 1 || month > 12 || day < 1 || day > 31) r.fail();
  return daysFromCivil(year, month, day);
}

// Nanoseconds since midnight.
int64_t readTime(Reader& r) {
  const int64_t hours = r.digits(2);
  if (!r.take(':')) r.fail();
  const int64_t minutes = r.digits(2);
  int64_t seconds = 0, nanos = 0;
  if (r.take(':')) {
    seconds = r.digits(2);
    if (r.take('.')) {
      int64_t scale = 100000000;
      size_t n = 0;
      while (!r.done() && r.peek() >= '0' && r.peek() <= '9') {
        if (n++ < 9) {
          nanos += (r.peek() - '0') * scale;
          scale /= 10;
        }
        ++r.at;
      }
      if (n == 0) r.fail();
    }
  }
  if (hours > 24 || minutes > 59 || seconds > 60) r.fail();
  return ((hours * 60 + minutes) * 60 + seconds) * 1000000000 + nanos;
}

// Seconds east of UTC: "Z", "+01", "+0130", "+01:30", "-05:00:00"; 0 when there is none.
int64_t readOffset(Reader& r) {
  if (r.done()) return 0;
  if (r.take('Z') || r.take('z')) return 0;
  int sign = 0;
  if (r.take('+'))
    sign = 1;
  else if (r.take('-'))
    sign = -1;
  else
    r.fail();
  int64_t seconds = r.digits(2) * 3600;
  if (r.take(':') || (!r.done() && r.peek() >= '0' && r.peek() <= '9')) {
    seconds += r.digits(2) * 60;
    if (r.take(':')) seconds += r.digits(2);
  }
  return sign * seconds;
}

}  // namespace

Instant Instant::fromEpochMillis(int64_t millis) {
  const int64_t seconds = detail::floorDiv(millis, 1000);
  return {seconds, static_cast<int32_t>((millis - seconds * 1000) * 1000000)};
}

Instant Instant::minusMillis(int64_t millis) const {
  const Instant delta = fromEpochMillis(millis);
  Instant out{seconds - delta.seconds, nanos - delta.nanos};
  if (out.nanos < 0) {
    out.nanos += 1000000000;
    --out.seconds;
  }
  return out;
}

Instant parseSqlTimestamp(std::string_view text) {
  Reader r{text};
  const int64_t days = readDate(r);
  int64_t nanos_of_day = 0;
  if (r.take(' ') || r.take('T')) nanos_of_day = readTime(r);
  const int64_t offset = readOffset(r);
  if (!r.done()) r.fail();
  Instant out{days * 86400 + nanos_of_day / 1000000000 - offset,
              static_cast<int32_t>(nanos_of_day % 1000000000)};
  return out;
}

int64_t parseSqlDate(std::string_view text) {
  Reader r{text};
  const int64_t days = readDate(r);
  if (!r.done()) r.fail();
  return days;
}

int64_t parseSqlTime(std::string_view text) {
  Reader r{text};
  const int64_t nanos = readTime(r);
  if (!r.done()) r.fail();
  return nanos;
}

std::string formatUtcTimestamp(const Instant& instant) {
  const int64_t days = detail::floorDiv(instant.seconds, 86400);
  const int64_t nanos_of_day = (instant.seconds - days * 86400) * 1000000000 + instant.nanos;
  return Value::dateToString(days) + " " + Value::timeToString(nanos_of_day, 1000000000) + "+00";
}

std::string formatUtcTimestampMillis(const Instant& instant) {
  return Value::timestampToString(instant.epochMillis());
}

}  // namespace ksink::jdbc
