#include "cast_value.h"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "base64.h"
#include "date_format.h"
#include "java_float.h"
#include "ksink/conversion_error.h"
#include "ksink/detail/config_parse.h"
#include "transform_support.h"

namespace ksink::detail {
namespace {

using Type = Schema::Type;

constexpr std::string_view kSupportedInput =
    "[INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING, BYTES]";

}  // namespace

std::string upperCase(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string typeUpper(Type type) {
  return upperCase(Schema::typeName(type) == "float"    ? "float32"
                   : Schema::typeName(type) == "double" ? "float64"
                                                        : Schema::typeName(type));
}

namespace {

// Java's (int) / (long) of a double: saturating, NaN to 0.
template <typename Int>
Int javaDoubleTo(double d) {
  if (std::isnan(d)) return 0;
  if (d >= static_cast<double>(std::numeric_limits<Int>::max()))
    return std::numeric_limits<Int>::max();
  if (d <= static_cast<double>(std::numeric_limits<Int>::min()))
    return std::numeric_limits<Int>::min();
  return static_cast<Int>(d);
}

// A source value as Java's Number: integral or floating.
struct Number {
  bool floating = false;
  int64_t i = 0;
  double d = 0;
  bool float32 = false;  // a Float, for toString
};

int64_t toIntegral(const Number& n, Type target) {
  // Java's byteValue()/shortValue() narrow the int value; longValue() saturates a double.
  const int64_t wide = !n.floating              ? n.i
                       : target == Type::kInt64 ? javaDoubleTo<int64_t>(n.d)
                                                : javaDoubleTo<int32_t>(n.d);
  return javaNarrow(wide, target);
}

double toFloating(const Number& n, Type target) {
  const double d = n.floating ? n.d : static_cast<double>(n.i);
  return target == Type::kFloat32 ? static_cast<double>(static_cast<float>(d)) : d;
}

[[noreturn]] void outOfRange(std::string_view text) {
  throw ConversionError(fmt::format("Value ({}) was out of range for requested data type", text));
}

// Byte.parseByte / Short.parseShort / Integer.parseInt / Long.parseLong.
int64_t parseJavaInteger(const std::string& text, Type target) {
  std::string_view s = text;
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty() || s.front() == '+') outOfRange(text);
  int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) outOfRange(text);
  const auto fits = [&](auto lo, auto hi) { return v >= lo && v <= hi; };
  if ((target == Type::kInt8 && !fits(INT8_MIN, INT8_MAX)) ||
      (target == Type::kInt16 && !fits(INT16_MIN, INT16_MAX)) ||
      (target == Type::kInt32 && !fits(INT32_MIN, INT32_MAX)))
    outOfRange(text);
  return v;
}

// Float.parseFloat / Double.parseDouble: surrounding whitespace, a sign, NaN, Infinity, decimal
// digits with an exponent and an f/d suffix.
double parseJavaFloating(const std::string& text, Type target) {
  std::string_view s = text;
  while (!s.empty() && static_cast<unsigned char>(s.front()) <= ' ') s.remove_prefix(1);
  while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ') s.remove_suffix(1);
  std::string body(s);
  bool negative = false;
  std::string_view unsigned_part = body;
  if (!unsigned_part.empty() && (unsigned_part.front() == '-' || unsigned_part.front() == '+')) {
    negative = unsigned_part.front() == '-';
    unsigned_part.remove_prefix(1);
  }
  if (unsigned_part == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (unsigned_part == "Infinity")
    return negative ? -std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::infinity();
  if (!body.empty() && std::string_view("fFdD").find(body.back()) != std::string_view::npos)
    body.pop_back();
  if (body.empty() || body.find_first_not_of("0123456789.eE+-") != std::string::npos)
    outOfRange(text);
  char* end = nullptr;
  errno = 0;
  const double d = target == Type::kFloat32 ? static_cast<double>(std::strtof(body.c_str(), &end))
                                            : std::strtod(body.c_str(), &end);
  if (end != body.c_str() + body.size()) outOfRange(text);
  return d;
}

// The text Connect's castToString gives a Date/Time/Timestamp (Values.dateFormatFor, UTC).
std::string dateText(int64_t millis) {
  static const auto time = *DateFormat::compile("HH:mm:ss.SSS'Z'", nullptr);
  static const auto date = *DateFormat::compile("yyyy-MM-dd", nullptr);
  static const auto timestamp = *DateFormat::compile("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'", nullptr);
  if (millis < 86400000) return time.format(millis);
  if (millis % 86400000 == 0) return date.format(millis);
  return timestamp.format(millis);
}

}  // namespace

// Connect's castValueToType; `schema` is nullptr for schemaless values.
Value castValue(const Schema* schema, const Value& value, Type target) {
  if (value.isNull()) return Value();
  const Type from = schema ? schema->type : Schema::inferredType(value);
  if (from == Type::kArray || from == Type::kMap || from == Type::kStruct)
    throw ConversionError(
        fmt::format("Cast transformation does not support casting from {}; supported types are {}",
                    typeUpper(from), kSupportedInput));
  const auto logical = schema ? schema->connectLogical() : Schema::Logical::kNone;
  const auto unexpected = [&]() -> Value {
    throw ConversionError(fmt::format("Unexpected type in Cast transformation: {} to {}",
                                      schema ? format_as(*schema) : Schema::typeName(from),
                                      typeUpper(target)));
  };
  const auto expectKind = [&](Value::Kind kind) {
    if (value.kind() != kind)
      throw ConversionError(fmt::format("Cast transformation: a {} value is not of its schema {}",
                                        Schema::typeName(from),
                                        schema ? format_as(*schema) : "type"));
  };

  if (target == Type::kString) {
    switch (logical) {
      case Schema::Logical::kDecimal:
        expectKind(Value::Kind::kBytes);
        return Value::string(Value::decimalToJavaString(value.asBytes(), schema->decimalScale()));
      case Schema::Logical::kDate:
        expectKind(Value::Kind::kInt);
        return Value::string(dateText(value.asInt() * 86400000));
      case Schema::Logical::kTime:
      case Schema::Logical::kTimestamp:
        expectKind(Value::Kind::kInt);
        return Value::string(dateText(value.asInt()));
      default:
        break;
    }
    switch (value.kind()) {
      case Value::Kind::kBytes:
        return Value::string(base64Encode(value.asBytes()));
      case Value::Kind::kBoolean:
        return Value::string(value.asBoolean() ? "true" : "false");
      case Value::Kind::kInt:
        return Value::string(std::to_string(value.asInt()));
      case Value::Kind::kDouble:
        return Value::string(javaFloatToString(value.asDouble(), from == Type::kFloat32));
      case Value::Kind::kString:
        return value;
      default:
        return unexpected();
    }
  }

  // The source as Java sees it: a Number, a Boolean or a String.
  std::optional<Number> number;
  if (logical == Schema::Logical::kDecimal) {
    expectKind(Value::Kind::kBytes);
    const auto text = Value::decimalToString(value.asBytes(), schema->decimalScale());
    Number n;
    // BigDecimal's longValue() drops the fraction; doubleValue() rounds.
    const auto dot = text.find('.');
    const auto integral = text.substr(0, dot);
    // Its low 64 bits, as BigInteger.longValue() keeps them.
    uint64_t wide = 0;
    for (char c : integral)
      if (c >= '0' && c <= '9') wide = wide * 10 + static_cast<uint64_t>(c - '0');
    if (!integral.empty() && integral[0] == '-') wide = ~wide + 1;
    if (target == Type::kFloat32 || target == Type::kFloat64) {
      n.floating = true;
      n.d = std::strtod(text.c_str(), nullptr);
    } else {
      n.i = static_cast<int64_t>(wide);
    }
    number = n;
  } else if (value.kind() == Value::Kind::kInt) {
    number = Number{false, value.asInt(), 0, false};
  } else if (value.kind() == Value::Kind::kDouble) {
    number = Number{true, 0, value.asDouble(), from == Type::kFloat32};
  }

  switch (target) {
    case Type::kInt8:
    case Type::kInt16:
    case Type::kInt32:
    case Type::kInt64:
      if (number) return Value::integer(toIntegral(*number, target));
      if (value.kind() == Value::Kind::kBoolean) return Value::integer(value.asBoolean() ? 1 : 0);
      if (value.kind() == Value::Kind::kString)
        return Value::integer(parseJavaInteger(value.asString(), target));
      return unexpected();
    case Type::kFloat32:
    case Type::kFloat64:
      if (number) return Value::floating(toFloating(*number, target));
      if (value.kind() == Value::Kind::kBoolean)
        return Value::floating(value.asBoolean() ? 1.0 : 0.0);
      if (value.kind() == Value::Kind::kString)
        return Value::floating(parseJavaFloating(value.asString(), target));
      return unexpected();
    case Type::kBoolean:
      if (number) return Value::boolean(toIntegral(*number, Type::kInt64) != 0);
      if (value.kind() == Value::Kind::kBoolean) return value;
      if (value.kind() == Value::Kind::kString)
        return Value::boolean(detail::equalsIgnoreCase(value.asString(), "true"));
      return unexpected();
    default:
      return unexpected();
  }
}

}  // namespace ksink::detail
