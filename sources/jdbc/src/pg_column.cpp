#include "pg_column.h"

#include <fmt/format.h>

#include <charconv>
#include <stdexcept>

#include "column_values.h"
#include "ksink/pg/pg_type_oids.h"
#include "sql_time.h"

namespace ksink::jdbc {
namespace {

using Oids = postgres::PgTypeOids;
using Type = Schema::Type;

uint32_t elementOf(uint32_t array_oid) {
  switch (array_oid) {
    case Oids::kBoolArray:
      return Oids::kBool;
    case Oids::kByteaArray:
      return Oids::kBytea;
    case Oids::kInt2Array:
      return Oids::kInt2;
    case Oids::kInt4Array:
      return Oids::kInt4;
    case Oids::kInt8Array:
      return Oids::kInt8;
    case Oids::kTextArray:
      return Oids::kText;
    case Oids::kVarcharArray:
      return Oids::kVarchar;
    case Oids::kFloat4Array:
      return Oids::kFloat4;
    case Oids::kFloat8Array:
      return Oids::kFloat8;
    case Oids::kNumericArray:
      return Oids::kNumeric;
    case Oids::kNameArray:
      return Oids::kName;
    case Oids::kBpcharArray:
      return Oids::kBpchar;
    case Oids::kOidArray:
      return Oids::kOid;
    case Oids::kDateArray:
      return Oids::kDate;
    case Oids::kTimeArray:
      return Oids::kTime;
    case Oids::kTimestampArray:
      return Oids::kTimestamp;
    case Oids::kTimestamptzArray:
      return Oids::kTimestamptz;
    case Oids::kJsonArray:
      return Oids::kJson;
    case Oids::kJsonbArray:
      return Oids::kJsonb;
    case Oids::kUuidArray:
      return Oids::kUuid;
    default:
      return 0;
  }
}

std::shared_ptr<Schema> scalarSchema(uint32_t oid, int32_t scale, bool optional) {
  switch (oid) {
    case Oids::kBool:
      return columnSchema(Type::kBoolean, optional);
    case Oids::kInt2:
      return columnSchema(Type::kInt16, optional);
    case Oids::kInt4:
      return columnSchema(Type::kInt32, optional);
    case Oids::kInt8:
    case Oids::kOid:
      return columnSchema(Type::kInt64, optional);
    case Oids::kFloat4:
      return columnSchema(Type::kFloat32, optional);
    case Oids::kFloat8:
      return columnSchema(Type::kFloat64, optional);
    case Oids::kBytea:
      return columnSchema(Type::kBytes, optional);
    case Oids::kNumeric:
      return scale < 0 ? variableScaleDecimalSchema(optional) : decimalSchema(scale, optional);
    case Oids::kDate:
      return logicalSchema(Type::kInt32, optional, Schema::kDateName);
    case Oids::kTime:
      return logicalSchema(Type::kInt32, optional, Schema::kTimeName);
    case Oids::kTimestamp:
    case Oids::kTimestamptz:
      return logicalSchema(Type::kInt64, optional, Schema::kTimestampName);
    case Oids::kUuid:
      return columnSchema(Type::kString, optional, Schema::kUuidName);
    case Oids::kJson:
    case Oids::kJsonb:
      return columnSchema(Type::kString, optional, Schema::kJsonName);
    case Oids::kXml:
      return columnSchema(Type::kString, optional, Schema::kXmlName);
    default:
      return columnSchema(Type::kString, optional);
  }
}

template <typename T>
T number(std::string_view text, const std::string& column) {
  T v{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size())
    throw std::invalid_argument(fmt::format("column {}: '{}' is not a number", column, text));
  return v;
}

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

PgColumn::PgColumn(std::string name, uint32_t oid, int fmod, bool optional)
    : name_(std::move(name)), oid_(oid), element_oid_(elementOf(oid)) {
  // numeric's typmod: ((precision << 16) | (scale & 0x7ff)) + 4, the scale an 11-bit signed
  // number (PostgreSQL 15 allows -1000..1000); -1 without one. A negative scale (rounding to
  // tens, hundreds…) reads as a VariableScaleDecimal, its values' own scale being 0.
  if (fmod >= 4 && (oid == Oids::kNumeric || oid == Oids::kNumericArray)) {
    int32_t scale = (fmod - 4) & 0x7ff;
    if (scale & 0x400) scale -= 0x800;
    scale_ = scale >= 0 ? scale : -1;
  }
  if (element_oid_ != 0) {
    auto s = columnSchema(Type::kArray, optional);
    s->value_schema = scalarSchema(element_oid_, scale_, true);
    schema_ = s;
  } else {
    schema_ = scalarSchema(oid, scale_, optional);
  }
}

Value PgColumn::read(const char* text, size_t length) const {
  if (!text) return Value();
  const std::string_view v(text, length);
  return element_oid_ != 0 ? readArray(v) : readScalar(oid_, v);
}

Value PgColumn::readScalar(uint32_t oid, std::string_view text) const {
  try {
    switch (oid) {
      case Oids::kBool:
        return Value::boolean(text == "t");
      case Oids::kInt2:
      case Oids::kInt4:
      case Oids::kInt8:
      case Oids::kOid:
        return Value::integer(number<int64_t>(text, name_));
      case Oids::kFloat4:
      case Oids::kFloat8:
        // from_chars reads NaN, Infinity and -Infinity as PostgreSQL writes them.
        return Value::floating(number<double>(text, name_));
      case Oids::kBytea: {
        if (!text.starts_with("\\x") || text.size() % 2 != 0)
          throw std::invalid_argument("bytea not in hex form");
        std::string out;
        out.reserve(text.size() / 2 - 1);
        for (size_t i = 2; i + 1 < text.size(); i += 2) {
          const int hi = hexDigit(text[i]), lo = hexDigit(text[i + 1]);
          if (hi < 0 || lo < 0) throw std::invalid_argument("bytea not in hex form");
          out.push_back(static_cast<char>(hi * 16 + lo));
        }
        return Value::bytes(std::move(out));
      }
      case Oids::kNumeric: {
        if (text == "NaN" || text == "Infinity" || text == "-Infinity")
          throw std::invalid_argument(
              fmt::format("{} cannot be a Connect Decimal (numeric.mapping=none)", text));
        return scale_ >= 0 ? decimalValue(text, scale_) : variableScaleDecimalValue(text);
      }
      case Oids::kDate:
        return Value::integer(parseSqlDate(text));
      case Oids::kTime:
        return Value::integer(parseSqlTime(text) / 1000000);
      case Oids::kTimestamp:
      case Oids::kTimestamptz:
        return Value::integer(parseSqlTimestamp(text).epochMillis());
      default:
        return Value::string(std::string(text));
    }
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("column {}: {}", name_, e.what()));
  }
}

Value PgColumn::readArray(std::string_view text) const {
  // {a,b,"c d",NULL}: elements separated by commas, quoted when they hold special characters
  // (backslash escapes inside quotes), NULL unquoted for a null. One dimension only.
  if (text.size() < 2 || text.front() != '{' || text.back() != '}')
    throw std::invalid_argument(fmt::format("column {}: '{}' is not an array", name_, text));
  Value::Array out;
  size_t i = 1;
  const size_t end = text.size() - 1;
  if (i == end) return Value::array({});
  while (i <= end) {
    std::string item;
    bool quoted = false;
    if (text[i] == '{')
      throw std::invalid_argument(
          fmt::format("column {}: arrays of more than one dimension are not read", name_));
    if (text[i] == '"') {
      quoted = true;
      for (++i; i < end && text[i] != '"'; ++i) {
        if (text[i] == '\\' && i + 1 < end) ++i;
        item.push_back(text[i]);
      }
      ++i;  // the closing quote
    } else {
      for (; i < end && text[i] != ','; ++i) item.push_back(text[i]);
    }
    out.push_back(!quoted && item == "NULL" ? Value() : readScalar(element_oid_, item));
    ++i;  // the comma (or the closing brace)
  }
  return Value::array(std::move(out));
}

}  // namespace ksink::jdbc
