#include "sqlite_column.h"

#include <SQLiteCpp/Column.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <regex>
#include <stdexcept>

#include "column_values.h"
#include "ksink/utf8.h"
#include "sql_time.h"

namespace ksink::jdbc {
namespace {

using Type = Schema::Type;

}  // namespace

SqliteColumn::SqliteColumn(std::string name, const std::string& declared_type, bool optional)
    : name_(std::move(name)) {
  std::string t = declared_type;
  std::transform(t.begin(), t.end(), t.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  auto has = [&](std::string_view word) { return t.find(word) != std::string::npos; };
  if (has("BOOL")) {
    schema_ = columnSchema(Type::kBoolean, optional);
  } else if (has("TINYINT")) {
    schema_ = columnSchema(Type::kInt8, optional);
  } else if (has("SMALLINT") || has("INT2")) {
    schema_ = columnSchema(Type::kInt16, optional);
  } else if (has("MEDIUMINT")) {
    schema_ = columnSchema(Type::kInt32, optional);
  } else if (has("INT")) {
    schema_ = columnSchema(Type::kInt64, optional);
  } else if (has("REAL") || has("FLOA") || has("DOUB")) {
    schema_ = columnSchema(Type::kFloat64, optional);
  } else if (has("DECIMAL") || has("NUMERIC")) {
    static const std::regex kScale(R"(\(\s*\d+\s*,\s*(\d+)\s*\))");
    std::smatch m;
    if (std::regex_search(t, m, kScale)) {
      scale_ = std::stoi(m[1].str());
      schema_ = decimalSchema(scale_, optional);
      logical_ = Schema::Logical::kDecimal;
    } else {
      schema_ = variableScaleDecimalSchema(optional);
      logical_ = Schema::Logical::kVariableScaleDecimal;
    }
  } else if (has("DATETIME") || has("TIMESTAMP")) {
    schema_ = logicalSchema(Type::kInt64, optional, Schema::kTimestampName);
    logical_ = Schema::Logical::kTimestamp;
  } else if (has("DATE")) {
    schema_ = logicalSchema(Type::kInt32, optional, Schema::kDateName);
    logical_ = Schema::Logical::kDate;
  } else if (has("TIME")) {
    schema_ = logicalSchema(Type::kInt32, optional, Schema::kTimeName);
    logical_ = Schema::Logical::kTime;
  } else if (has("BLOB")) {
    schema_ = columnSchema(Type::kBytes, optional);
  } else if (has("UUID")) {
    schema_ = columnSchema(Type::kString, optional, Schema::kUuidName);
  } else if (has("JSON")) {
    schema_ = columnSchema(Type::kString, optional, Schema::kJsonName);
  } else {
    schema_ = columnSchema(Type::kString, optional);
  }
}

Value SqliteColumn::read(const SQLite::Column& column) const {
  if (column.isNull()) return Value();
  const std::string text = column.isBlob() ? std::string() : column.getString();
  try {
    switch (logical_) {
      case Schema::Logical::kDecimal:
        return decimalValue(text, scale_);
      case Schema::Logical::kVariableScaleDecimal:
        return variableScaleDecimalValue(text);
      case Schema::Logical::kTimestamp:
        return Value::integer(parseSqlTimestamp(text).epochMillis());
      case Schema::Logical::kDate:
        return Value::integer(parseSqlDate(text));
      case Schema::Logical::kTime:
        return Value::integer(parseSqlTime(text) / 1000000);
      default:
        break;
    }
    switch (schema_->type) {
      case Type::kBoolean:
      case Type::kInt8:
      case Type::kInt16:
      case Type::kInt32:
      case Type::kInt64: {
        if (!column.isInteger())
          throw std::invalid_argument(fmt::format("'{}' is not an integer", text));
        const int64_t v = column.getInt64();
        return schema_->type == Type::kBoolean ? Value::boolean(v != 0) : Value::integer(v);
      }
      case Type::kFloat64:
        if (!column.isInteger() && !column.isFloat())
          throw std::invalid_argument(fmt::format("'{}' is not a number", text));
        return Value::floating(column.getDouble());
      case Type::kBytes:
        return Value::bytes(std::string(static_cast<const char*>(column.getBlob()),
                                        static_cast<size_t>(column.getBytes())));
      default: {
        // SQLite stores TEXT (and a BLOB in a TEXT column) without checking its encoding; the JDBC
        // driver decodes it as Java does, replacing what is not UTF-8.
        std::string out = column.isBlob() ? std::string(static_cast<const char*>(column.getBlob()),
                                                        static_cast<size_t>(column.getBytes()))
                                          : text;
        replaceMalformedUtf8(out);
        return Value::string(std::move(out));
      }
    }
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("column {}: {}", name_, e.what()));
  }
}

}  // namespace ksink::jdbc
