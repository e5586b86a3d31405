#include "ksink/iso_time_reader.h"

#include "ksink/civil_date.h"

namespace ksink {
namespace {

bool leapYear(int64_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int64_t daysInMonth(int64_t year, int64_t month) {
  static constexpr int kMonthDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return kMonthDays[month - 1] + (month == 2 && leapYear(year) ? 1 : 0);
}

}  // namespace

bool IsoTimeReader::literal(char c) {
  if (pos_ < text_.size() && text_[pos_] == c) {
    ++pos_;
    return true;
  }
  return false;
}

bool IsoTimeReader::nextIsDigit() const {
  return pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9';
}

bool IsoTimeReader::digits(size_t n, int64_t& out) {
  if (text_.size() - pos_ < n) return false;
  out = 0;
  for (size_t i = 0; i < n; ++i) {
    const char c = text_[pos_ + i];
    if (c < '0' || c > '9') return false;
    out = out * 10 + (c - '0');
  }
  pos_ += n;
  return true;
}

bool IsoTimeReader::date(int64_t& days) {
  int64_t year = 0, month = 0, day = 0;
  if (!digits(4, year)) return false;
  for (int extra = 0; extra < 8 && nextIsDigit(); ++extra) year = year * 10 + (text_[pos_++] - '0');
  if (!literal('-') || !digits(2, month) || !literal('-') || !digits(2, day)) return false;
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month))
    return false;
  days = daysFromCivil(year, month, day);
  return true;
}

bool IsoTimeReader::time(int64_t& nanos) {
  int64_t h = 0, m = 0, s = 0, fraction = 0;
  if (!digits(2, h) || !literal(':') || !digits(2, m)) return false;
  if (literal(':')) {
    if (!digits(2, s)) return false;
    if (literal('.')) {
      int64_t scale = 100000000;
      size_t n = 0;
      for (; nextIsDigit(); ++n, scale /= 10) {
        if (n == 9) return false;
        fraction += (text_[pos_++] - '0') * scale;
      }
      if (n == 0) return false;
    }
  }
  if (h > 24 || m > 59 || s > 60 || (h == 24 && (m != 0 || s != 0 || fraction != 0))) return false;
  nanos = ((h * 60 + m) * 60 + s) * 1000000000 + fraction;
  return true;
}

bool IsoTimeReader::offset(int64_t& seconds) {
  if (literal('Z') || literal('z')) {
    seconds = 0;
    return true;
  }
  const bool east = literal('+');
  if (!east && !literal('-')) return false;
  int64_t h = 0, m = 0, s = 0;
  if (!digits(2, h)) return false;
  if (literal(':') || nextIsDigit()) {
    if (!digits(2, m)) return false;
    if ((literal(':') || nextIsDigit()) && !digits(2, s)) return false;
  }
  if (h > 15 || m > 59 || s > 59) return false;
  seconds = (h * 3600 + m * 60 + s) * (east ? 1 : -1);
  return true;
}

}  // namespace ksink
