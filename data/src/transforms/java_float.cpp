#include "java_float.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace ksink::detail {

std::string javaFloatToString(double value, bool float32) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  if (value == 0) return std::signbit(value) ? "-0.0" : "0.0";
  // Shortest round-trip digits in scientific form, then laid out as Java does.
  char buf[64];
  const auto res = float32
                       ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(value),
                                       std::chars_format::scientific)
                       : std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  std::string out;
  if (sci.front() == '-') {
    out.push_back('-');
    sci.erase(0, 1);
  }
  const auto e = sci.find('e');
  const int exponent = std::stoi(sci.substr(e + 1));
  std::string digits = sci.substr(0, e);
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
  const double magnitude = std::fabs(value);
  if (magnitude >= 1e-3 && magnitude < 1e7) {
    if (exponent >= 0) {
      const size_t int_len = static_cast<size_t>(exponent) + 1;
      if (digits.size() <= int_len) {
        out += digits + std::string(int_len - digits.size(), '0') + ".0";
      } else {
        out += digits.substr(0, int_len) + "." + digits.substr(int_len);
      }
    } else {
      out += "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
    }
    return out;
  }
  out += digits.substr(0, 1) + "." + (digits.size() > 1 ? digits.substr(1) : "0");
  out += "E" + std::to_string(exponent);
  return out;
}

}  // namespace ksink::detail
