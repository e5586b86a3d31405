// Dates as day counts: days since 1970-01-01 and back, in the proleptic Gregorian calendar (Howard
// Hinnant's algorithms), as Connect's Date and Timestamp logical types count them. For sinks and
// transforms that turn such values into text or a database's own date encoding. Pure functions:
// any thread.
#pragma once

#include <cstdint>

namespace ksink {

struct CivilDate {
  int64_t year = 1970;
  int64_t month = 1;  // 1..12
  int64_t day = 1;    // 1..31
};

namespace detail {
constexpr int64_t floorDiv(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}
}  // namespace detail

// The day count of `year`-`month`-`day`. Lenient like Java's calendar: a month outside 1..12 rolls
// the year, a day past the month's end rolls into the next.
constexpr int64_t daysFromCivil(int64_t year, int64_t month, int64_t day) {
  year += detail::floorDiv(month - 1, 12);
  month = month - detail::floorDiv(month - 1, 12) * 12;
  year -= month <= 2;
  const int64_t era = detail::floorDiv(year, 400);
  const int64_t yoe = year - era * 400;
  const int64_t doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468 + (day - 1);
}

// The date `days` after 1970-01-01 (before it when negative); any int64 count a Date can hold.
constexpr CivilDate civilFromDays(int64_t days) {
  const int64_t z = days + 719468;
  const int64_t era = detail::floorDiv(z, 146097);
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  CivilDate out;
  out.day = doy - (153 * mp + 2) / 5 + 1;
  out.month = mp < 10 ? mp + 3 : mp - 9;
  out.year = yoe + era * 400 + (out.month <= 2);
  return out;
}

static_assert(daysFromCivil(1970, 1, 1) == 0 && daysFromCivil(2000, 3, 1) == 11017 &&
              daysFromCivil(1969, 12, 31) == -1 && daysFromCivil(2024, 13, 1) == 20089);
static_assert(civilFromDays(11017).year == 2000 && civilFromDays(11017).month == 3 &&
              civilFromDays(-1).year == 1969 && civilFromDays(-1).day == 31);

}  // namespace ksink
