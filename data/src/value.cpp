#include "ksink/value.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <system_error>

#include "connect_json_writer.h"
#include "ksink/civil_date.h"
#include "ksink/connect_json.h"
#include "ksink/conversion_error.h"

namespace ksink {
namespace {

int64_t floorDiv(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

}  // namespace

const Value* Value::find(std::string_view name) const {
  if (kind() != Kind::kObject) return nullptr;
  for (const auto& [n, v] : asObject())
    if (n == name) return &v;
  return nullptr;
}

std::string Value::toJson() const {
  std::string out;
  appendSchemalessJson(out, *this, JsonSpelling::kPlain);
  return out;
}

std::string toConnectJson(const Value::Object& map) {
  std::string out;
  appendSchemalessJson(out, map, JsonSpelling::kConnect);
  return out;
}

std::optional<std::string> Value::decimalBeyondBounds(std::optional<size_t> unscaled_bytes,
                                                      std::optional<int64_t> scale) {
  if (scale && (*scale > kMaxDecimalScale || *scale < -kMaxDecimalScale))
    return fmt::format("decimal scale {} is not within ±{}", *scale, kMaxDecimalScale);
  if (unscaled_bytes && *unscaled_bytes > kMaxDecimalBytes)
    return fmt::format("a decimal of {} bytes (at most {})", *unscaled_bytes, kMaxDecimalBytes);
  return std::nullopt;
}

std::string Value::decimalToString(std::string_view unscaled, int32_t scale) {
  if (auto beyond = decimalBeyondBounds(unscaled.size(), scale)) throw ConversionError(*beyond);
  // Two's complement big-endian → sign + magnitude, then magnitude → decimal digits by repeated
  // division (decimals are short; no big-integer library needed).
  std::vector<uint8_t> mag(unscaled.begin(), unscaled.end());
  const bool negative = !mag.empty() && (mag[0] & 0x80);
  if (negative) {
    for (auto& b : mag) b = static_cast<uint8_t>(~b);
    for (size_t i = mag.size(); i-- > 0;)
      if (++mag[i] != 0) break;
  }
  std::string digits;
  auto nonzero = [&] { return std::any_of(mag.begin(), mag.end(), [](uint8_t b) { return b; }); };
  while (nonzero()) {
    unsigned rem = 0;
    for (auto& b : mag) {
      const unsigned cur = (rem << 8) | b;
      b = static_cast<uint8_t>(cur / 10);
      rem = cur % 10;
    }
    digits += static_cast<char>('0' + rem);
  }
  if (digits.empty()) digits = "0";
  if (scale > 0) {
    while (digits.size() <= static_cast<size_t>(scale)) digits += '0';
    digits.insert(static_cast<size_t>(scale), ".");
  } else if (scale < 0 && digits != "0") {
    digits.insert(0, static_cast<size_t>(-scale), '0');
  }
  if (negative) digits += '-';
  std::reverse(digits.begin(), digits.end());
  return digits;
}

std::string Value::decimalToJavaString(std::string_view unscaled, int32_t scale) {
  std::string plain = decimalToString(unscaled, 0);  // the unscaled value's digits
  const bool negative = plain[0] == '-';
  std::string digits = negative ? plain.substr(1) : plain;
  const int64_t adjusted = static_cast<int64_t>(digits.size()) - 1 - scale;
  if (scale >= 0 && adjusted >= -6) {  // plain text: the digits with the point put in
    if (scale == 0) return plain;
    const auto places = static_cast<size_t>(scale);
    if (digits.size() <= places) digits.insert(0, places + 1 - digits.size(), '0');
    digits.insert(digits.size() - places, ".");
    return negative ? "-" + digits : digits;
  }
  std::string out = negative ? "-" : "";
  out += digits[0];
  if (digits.size() > 1) out += "." + digits.substr(1);
  out += adjusted > 0 ? fmt::format("E+{}", adjusted) : fmt::format("E{}", adjusted);
  return out;
}

std::optional<std::string> Value::decimalFromString(std::string_view text, int32_t scale) {
  if (scale > kMaxDecimalScale || scale < -kMaxDecimalScale || text.size() > kMaxDecimalDigits + 8)
    return std::nullopt;
  bool negative = false;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  // Java's BigDecimal text too: an exponent, as Connect writes small and negative-scale decimals
  // ("1E-8", "5E+3", "-1.5E-7").
  int64_t exponent = 0;
  if (const auto e = text.find_first_of("eE"); e != std::string_view::npos) {
    auto exp_text = text.substr(e + 1);
    if (exp_text.size() > 1 && exp_text[0] == '+' && exp_text[1] != '-') exp_text.remove_prefix(1);
    const auto [end, ec] =
        std::from_chars(exp_text.data(), exp_text.data() + exp_text.size(), exponent);
    if (ec != std::errc() || end != exp_text.data() + exp_text.size() || exp_text.empty() ||
        exponent > kMaxDecimalScale || exponent < -kMaxDecimalScale)
      return std::nullopt;
    text = text.substr(0, e);
  }
  std::string digits;
  int64_t fraction = -1;
  for (const char c : text) {
    if (c == '.' && fraction < 0) {
      fraction = 0;
    } else if (c >= '0' && c <= '9') {
      digits += c;
      if (fraction >= 0) ++fraction;
    } else {
      return std::nullopt;
    }
  }
  if (digits.empty()) return std::nullopt;
  if (fraction < 0) fraction = 0;
  // The number is digits × 10^-(fraction - exponent): its own scale.
  int64_t own_scale = fraction - exponent;
  // Drop trailing zeros beyond the scale ("1.50" at scale 1); refuse real extra precision.
  while (own_scale > scale && digits.size() > 1 && digits.back() == '0') {
    digits.pop_back();
    --own_scale;
  }
  if (own_scale > scale && digits == "0") own_scale = scale;
  if (own_scale > scale ||
      digits.size() + static_cast<size_t>(scale - own_scale) > kMaxDecimalDigits)
    return std::nullopt;
  digits.append(static_cast<size_t>(scale - own_scale), '0');
  // Decimal digits → big-endian magnitude.
  std::vector<uint8_t> mag{0};
  for (const char c : digits) {
    unsigned carry = static_cast<unsigned>(c - '0');
    for (size_t i = mag.size(); i-- > 0;) {
      const unsigned cur = mag[i] * 10u + carry;
      mag[i] = static_cast<uint8_t>(cur & 0xff);
      carry = cur >> 8;
    }
    while (carry) {
      mag.insert(mag.begin(), static_cast<uint8_t>(carry & 0xff));
      carry >>= 8;
    }
  }
  while (mag.size() > 1 && mag[0] == 0 && !(mag[1] & 0x80)) mag.erase(mag.begin());
  if (mag[0] & 0x80) mag.insert(mag.begin(), 0);  // keep the sign bit clear for the magnitude
  if (negative) {
    for (auto& b : mag) b = static_cast<uint8_t>(~b);
    for (size_t i = mag.size(); i-- > 0;)
      if (++mag[i] != 0) break;
    while (mag.size() > 1 && mag[0] == 0xff && (mag[1] & 0x80)) mag.erase(mag.begin());
  }
  return std::string(mag.begin(), mag.end());
}

std::string Value::dateToString(int64_t days) {
  const auto date = civilFromDays(days);
  return fmt::format("{:04}-{:02}-{:02}", date.year, date.month, date.day);
}

std::string Value::timeToString(int64_t millis_of_day) {
  const int64_t ms = ((millis_of_day % 86400000) + 86400000) % 86400000;
  return fmt::format("{:02}:{:02}:{:02}.{:03}", ms / 3600000, ms / 60000 % 60, ms / 1000 % 60,
                     ms % 1000);
}

std::string Value::timestampToString(int64_t epoch_millis) {
  const int64_t days = floorDiv(epoch_millis, 86400000);
  return dateToString(days) + " " + timeToString(epoch_millis - days * 86400000);
}

std::string Value::timeToString(int64_t since_midnight, int64_t units_per_second) {
  int digits = 0;
  for (int64_t u = units_per_second; u > 1; u /= 10) ++digits;
  const int64_t day = 86400 * units_per_second;
  if (since_midnight == day) return fmt::format("24:00:00.{:0>{}}", "", digits);
  const int64_t t = ((since_midnight % day) + day) % day;
  const int64_t seconds = t / units_per_second;
  return fmt::format("{:02}:{:02}:{:02}.{:0{}}", seconds / 3600, seconds / 60 % 60, seconds % 60,
                     t % units_per_second, digits);
}

std::string Value::timestampToString(int64_t since_epoch, int64_t units_per_second) {
  const int64_t per_day = 86400 * units_per_second;
  const int64_t days = floorDiv(since_epoch, per_day);
  return dateToString(days) + " " + timeToString(since_epoch - days * per_day, units_per_second);
}

std::optional<int64_t> Value::toMicros(int64_t value, int64_t units_per_second) {
  if (units_per_second >= 1000000) return floorDiv(value, units_per_second / 1000000);
  const int64_t factor = 1000000 / units_per_second;
  if (value > std::numeric_limits<int64_t>::max() / factor ||
      value < std::numeric_limits<int64_t>::min() / factor)
    return std::nullopt;
  return value * factor;
}

std::string Value::bitsToString(std::string_view little_endian, std::optional<int64_t> length) {
  // A bit string longer than this is refused by PostgreSQL anyway (bit(n)'s limit); a larger
  // "length" is not a column's declared size but an unbounded varbit's placeholder.
  constexpr int64_t kMaxBits = 83886080;
  int64_t significant = 0;
  for (size_t i = little_endian.size(); i-- > 0;) {
    const auto b = static_cast<uint8_t>(little_endian[i]);
    if (b != 0) {
      significant = static_cast<int64_t>(i) * 8 + std::bit_width(b);
      break;
    }
  }
  int64_t width = std::max<int64_t>(significant, 1);
  if (length && *length >= significant && *length >= 1 && *length <= kMaxBits) width = *length;
  std::string out(static_cast<size_t>(width), '0');
  for (int64_t bit = 0; bit < significant; ++bit)
    if (static_cast<uint8_t>(little_endian[static_cast<size_t>(bit / 8)]) >> (bit % 8) & 1)
      out[static_cast<size_t>(width - 1 - bit)] = '1';
  return out;
}

}  // namespace ksink
