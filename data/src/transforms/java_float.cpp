#include "java_float.h"

#include <charconv>
#include <cmath>

namespace ksink::detail {

void appendJavaFloat(std::string& out, double value, bool float32) {
  if (std::isnan(value)) {
    out += "NaN";
    return;
  }
  if (std::isinf(value)) {
    out += value > 0 ? "Infinity" : "-Infinity";
    return;
  }
  if (value == 0) {
    out += std::signbit(value) ? "-0.0" : "0.0";
    return;
  }
  // Shortest round-trip digits in scientific form ("-1.2345e-07"), then laid out as Java does.
  char buf[64];
  const auto res = float32
                       ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(value),
                                       std::chars_format::scientific)
                       : std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  const char* p = buf;
  if (*p == '-') {
    out += '-';
    ++p;
  }
  // The significant digits without the point, and the exponent.
  char digits[32];
  size_t n = 0;
  for (; p < res.ptr && *p != 'e'; ++p)
    if (*p != '.') digits[n++] = *p;
  int exponent = 0;
  if (p < res.ptr) {
    ++p;
    if (*p == '+') ++p;
    std::from_chars(p, res.ptr, exponent);
  }
  const double magnitude = std::fabs(value);
  if (magnitude >= 1e-3 && magnitude < 1e7) {
    if (exponent >= 0) {
      const size_t int_len = static_cast<size_t>(exponent) + 1;
      if (n <= int_len) {
        out.append(digits, n).append(int_len - n, '0').append(".0");
      } else {
        out.append(digits, int_len).append(1, '.').append(digits + int_len, n - int_len);
      }
    } else {
      out.append("0.").append(static_cast<size_t>(-exponent - 1), '0').append(digits, n);
    }
    return;
  }
  out.append(digits, 1).append(1, '.');
  if (n > 1)
    out.append(digits + 1, n - 1);
  else
    out += '0';
  out += 'E';
  char exp[16];
  out.append(exp, std::to_chars(exp, exp + sizeof exp, exponent).ptr);
}

std::string javaFloatToString(double value, bool float32) {
  std::string out;
  appendJavaFloat(out, value, float32);
  return out;
}

}  // namespace ksink::detail
