#include "sql_time.h"

#include <fmt/format.h>

#include <stdexcept>

#include "ksink/civil_date.h"
#include "ksink/iso_time_reader.h"
#include "ksink/value.h"

namespace ksink::jdbc {
namespace {

[[noreturn]] void fail(std::string_view text) {
  throw std::invalid_argument(fmt::format("'{}' is not a date/time the source reads", text));
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
  IsoTimeReader r(text);
  int64_t days = 0, nanos_of_day = 0, offset = 0;
  if (!r.date(days)) fail(text);
  if ((r.literal(' ') || r.literal('T')) && !r.time(nanos_of_day)) fail(text);
  // No offset: the time is UTC's (a timestamp without time zone read in a UTC session).
  if (!r.done() && !r.offset(offset)) fail(text);
  if (!r.done()) fail(text);
  return {days * 86400 + nanos_of_day / 1000000000 - offset,
          static_cast<int32_t>(nanos_of_day % 1000000000)};
}

int64_t parseSqlDate(std::string_view text) {
  IsoTimeReader r(text);
  int64_t days = 0;
  if (!r.date(days) || !r.done()) fail(text);
  return days;
}

int64_t parseSqlTime(std::string_view text) {
  IsoTimeReader r(text);
  int64_t nanos = 0;
  if (!r.time(nanos) || !r.done()) fail(text);
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
