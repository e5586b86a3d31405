#include "java_date.h"

#include <fmt/format.h>

#include "ksink/civil_date.h"

namespace ksink::detail {

std::string javaDateToString(int64_t epoch_millis) {
  static constexpr const char* kDays[] = {"Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"};
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const int64_t days = floorDiv(epoch_millis, 86400000);
  const int64_t ms = epoch_millis - days * 86400000;
  const auto [year, month, day] = civilFromDays(days);
  // 1970-01-01 was a Thursday.
  const int64_t weekday = days - floorDiv(days, 7) * 7;
  return fmt::format("{} {} {:02} {:02}:{:02}:{:02} UTC {}", kDays[weekday], kMonths[month - 1],
                     day, ms / 3600000, ms / 60000 % 60, ms / 1000 % 60, year);
}

}  // namespace ksink::detail
