// A strict reader of the text forms of dates, times and zone offsets: ISO-8601 as Java's
// ISO_OFFSET_DATE_TIME writes them ("2024-02-29T13:45:07.123456+01:00", Debezium's ZonedTimestamp)
// and as PostgreSQL prints them ("2024-02-29 13:45:07.123456+01", years past 9999 too). Sinks read
// Debezium's zoned strings with it, table sources their databases' timestamps. Each reading
// function consumes its piece and says whether it was there and valid; the caller composes them
// and checks done() at the end.
#pragma once

#include <cstdint>
#include <string_view>

namespace ksink {

class IsoTimeReader {
 public:
  explicit IsoTimeReader(std::string_view text) : text_(text) {}

  bool done() const { return pos_ == text_.size(); }
  // Consumes `c` when it comes next.
  bool literal(char c);

  // YYYY-MM-DD, a year of four digits or more (up to 12) from 1 on → days since 1970-01-01; false
  // for a day the month does not have.
  bool date(int64_t& days);
  // HH:MM[:SS[.f]] with up to nine fraction digits → nanoseconds of the day. 24:00:00 is a day's
  // worth; a leap second (:60) counts into the next minute, as PostgreSQL reads it.
  bool time(int64_t& nanos);
  // Z | ±HH[[:]MM[[:]SS]] (under 16 hours, PostgreSQL's bound) → seconds east of UTC.
  bool offset(int64_t& seconds);

 private:
  // Exactly `n` digits.
  bool digits(size_t n, int64_t& out);
  bool nextIsDigit() const;

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace ksink
