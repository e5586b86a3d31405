// Instants and the SQL text forms of dates, times and timestamps the table sources read and bind:
// "2024-02-29 13:45:07.123456+01" (PostgreSQL's ISO output; 'T' for the space and "Z" for the
// offset too, as SQLite's date functions accept), "2024-02-29", "13:45:07.5".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ksink::jdbc {

// A point in time with nanoseconds, as java.sql.Timestamp holds it.
struct Instant {
  int64_t seconds = 0;  // since 1970-01-01 00:00 UTC
  int32_t nanos = 0;    // of that second, 0..999999999

  int64_t epochMillis() const { return seconds * 1000 + nanos / 1000000; }
  static Instant fromEpochMillis(int64_t millis);
  Instant minusMillis(int64_t millis) const;
  Instant truncatedToMillis() const { return {seconds, nanos / 1000000 * 1000000}; }

  friend auto operator<=>(const Instant&, const Instant&) = default;
};

// Throws std::invalid_argument naming the text when it is not of the form above (an "infinity",
// a BC date, a time zone name are not).
Instant parseSqlTimestamp(std::string_view text);
// Days since 1970-01-01.
int64_t parseSqlDate(std::string_view text);
// Nanoseconds since midnight ("24:00:00" is one day's worth).
int64_t parseSqlTime(std::string_view text);

// "2024-02-29 13:45:07.123456789+00": what PostgreSQL binds to timestamptz exactly.
std::string formatUtcTimestamp(const Instant& instant);
// "2024-02-29 13:45:07.123": SQLite's strftime('%Y-%m-%d %H:%M:%f') form, milliseconds.
std::string formatUtcTimestampMillis(const Instant& instant);

}  // namespace ksink::jdbc
