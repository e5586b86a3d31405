// InsertHeader: adds a header with a literal value to every record, like Connect's InsertHeader.
// The literal is typed as Connect's Values.parseString types it, for the scalar forms.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <variant>

#include "builtin_transforms.h"
#include "date_format.h"
#include "ksink/civil_date.h"
#include "ksink/detail/config_parse.h"
#include "transform_support.h"

namespace ksink::detail {
namespace {

using Type = Schema::Type;

// A BigDecimal literal (sign, digits with an optional point, optional exponent) that is a whole
// number: its value, or nullopt when it has a fraction. `fits` is false past int64.
std::optional<int64_t> exactInteger(std::string_view text, bool& fits) {
  fits = true;
  bool negative = false;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  const auto e = text.find_first_of("eE");
  int64_t exponent = 0;
  if (e != std::string_view::npos) {
    auto exp_text = text.substr(e + 1);
    if (!exp_text.empty() && exp_text[0] == '+') exp_text.remove_prefix(1);
    std::from_chars(exp_text.data(), exp_text.data() + exp_text.size(), exponent);
    text = text.substr(0, e);
  }
  std::string digits;
  int64_t point = static_cast<int64_t>(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '.')
      point = static_cast<int64_t>(i);
    else
      digits.push_back(text[i]);
  }
  const int64_t int_len = point + exponent;  // digits before the decimal point once scaled
  for (int64_t i = std::max<int64_t>(int_len, 0); i < static_cast<int64_t>(digits.size()); ++i)
    if (digits[static_cast<size_t>(i)] != '0') return std::nullopt;
  if (int_len > 19) {
    const auto first = digits.find_first_not_of('0');
    if (first != std::string::npos && static_cast<int64_t>(first) < int_len - 19) {
      fits = false;
      return 0;
    }
  }
  std::string whole =
      int_len <= 0
          ? "0"
          : digits.substr(0, std::min<size_t>(digits.size(), static_cast<size_t>(int_len)));
  if (int_len > static_cast<int64_t>(digits.size()))
    whole.append(static_cast<size_t>(int_len) - digits.size(), '0');
  if (negative) whole.insert(whole.begin(), '-');
  int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(whole.data(), whole.data() + whole.size(), v);
  if (ec != std::errc() || ptr != whole.data() + whole.size()) {
    fits = false;
    return 0;
  }
  return v;
}

bool isNumberLiteral(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  size_t digits = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    const size_t start = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    if (i == start) return false;
  }
  return i == s.size();
}

// The header a literal gives, or why ksink cannot type it as Connect would.
std::variant<SchemaAndValue, std::string> parseLiteral(const std::string& literal) {
  if (literal.empty()) return SchemaAndValue{Schema::of(Type::kString), Value::string("")};
  if (literal == "null") return SchemaAndValue{nullptr, Value()};
  if (literal == "true" || literal == "false")
    return SchemaAndValue{Schema::of(Type::kBoolean), Value::boolean(literal == "true")};
  const auto token = trim(literal);
  if (token.empty()) return SchemaAndValue{Schema::of(Type::kString), Value::string(literal)};
  if (literal[0] == '[' || literal[0] == '{')
    return std::string("arrays and maps are not supported as header literals");
  const bool numeric_start =
      std::isdigit(static_cast<unsigned char>(token[0])) || token[0] == '+' || token[0] == '-';
  if (std::isdigit(static_cast<unsigned char>(token[0]))) {
    // Connect's ISO 8601 forms, as Date, Time and Timestamp (UTC).
    struct Temporal {
      const char* pattern;
      size_t length;
      Schema::Logical logical;
    };
    for (const auto& t :
         {Temporal{"yyyy-MM-dd", 10, Schema::Logical::kDate},
          Temporal{"HH:mm:ss.SSS'Z'", 13, Schema::Logical::kTime},
          Temporal{"yyyy-MM-dd'T'HH:mm:ss.SSS'Z'", 24, Schema::Logical::kTimestamp}}) {
      if (token.size() != t.length) continue;
      const auto millis = DateFormat::compile(t.pattern, nullptr)->parse(token);
      if (!millis) continue;
      const int64_t v = t.logical == Schema::Logical::kDate ? floorDiv(*millis, 86400000) : *millis;
      return SchemaAndValue{logicalSchema(t.logical, false), Value::integer(v)};
    }
  }
  if (numeric_start && isNumberLiteral(token)) {
    bool fits = true;
    if (auto whole = exactInteger(token, fits)) {
      if (!fits)
        return std::string("integers beyond 64 bits (Connect's Decimal) are not supported");
      const int64_t v = *whole;
      const Type type = v == static_cast<int8_t>(v)    ? Type::kInt8
                        : v == static_cast<int16_t>(v) ? Type::kInt16
                        : v == static_cast<int32_t>(v) ? Type::kInt32
                                                       : Type::kInt64;
      return SchemaAndValue{Schema::of(type), Value::integer(v)};
    }
    const std::string text(token);
    const float f = std::strtof(text.c_str(), nullptr);
    if (std::isfinite(f))
      return SchemaAndValue{Schema::of(Type::kFloat32), Value::floating(static_cast<double>(f))};
    const double d = std::strtod(text.c_str(), nullptr);
    if (std::isfinite(d)) return SchemaAndValue{Schema::of(Type::kFloat64), Value::floating(d)};
    return std::string("numbers beyond a double (Connect's Decimal) are not supported");
  }
  // Connect's tokenizer would read a leading number out of text such as "12:30" or "1,2".
  if (numeric_start && token.find_first_of(",:[]{}\"") != std::string_view::npos)
    return std::string(
        "starts with a number followed by a delimiter (, : [ ] { } \"), which Connect reads as "
        "that number alone; ksink refuses it rather than guess which was meant");
  return SchemaAndValue{Schema::of(Type::kString), Value::string(literal)};
}

class InsertHeader : public BuiltinTransform<InsertHeader> {
 public:
  static ConfigDef definition() {
    return ConfigDef()
        .define("header", ConfigDef::Type::kString, std::nullopt, ConfigDef::Importance::kHigh,
                "The name of the header.")
        .define("value.literal", ConfigDef::Type::kString, std::nullopt,
                ConfigDef::Importance::kHigh,
                "The literal value that is to be set as the header value on all records, typed as "
                "Connect types it: true/false, integers, decimals, ISO dates and times, else a "
                "string.");
  }

  void configure(const Config& config) override {
    header_ = config.getString("header");
    auto literal = parseLiteral(config.getString("value.literal"));
    if (auto* error = std::get_if<std::string>(&literal))
      throw configError("value.literal", *error);
    value_ = std::get<SchemaAndValue>(std::move(literal));
  }

  std::optional<ConnectRecord> apply(ConnectRecord record) override {
    record.headers.push_back({header_, value_});
    return record;
  }

 private:
  std::string header_;
  SchemaAndValue value_;
};

}  // namespace

void registerInsertHeader(TransformationRegistry& registry) {
  registerTransform<InsertHeader>(registry, "InsertHeader");
}

}  // namespace ksink::detail
