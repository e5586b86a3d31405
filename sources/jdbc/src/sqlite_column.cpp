#include "sqlite_column.h"

#include <SQLiteCpp/Column.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <regex>
#include <stdexcept>

#include "sql_time.h"

namespace ksink::jdbc {
namespace {

using Type = Schema::Type;

std::shared_ptr<Schema> make(Type type, bool optional, std::string_view name = {}) {
  auto s = std::make_shared<Schema>();
  s->type = type;
  s->optional = optional;
  s->name = std::string(name);
  return s;
}

std::shared_ptr<Schema> logicalSchema(Type type, bool optional, std::string_view name) {
  auto s = make(type, optional, name);
  s->version = 1;
  return s;
}

}  // namespace

SqliteColumn::SqliteColumn(std::string name, const std::string& declared_type, bool optional)
    : name_(std::move(name)) {
  std::string t = declared_type;
  std::transform(t.begin(), t.end(), t.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  auto has = [&](std::string_view word) { return t.find(word) != std::string::npos; };
  if (has("BOOL")) {
    schema_ = make(Type::kBoolean, optional);
  } else if (has("TINYINT")) {
    schema_ = make(Type::kInt8, optional);
  } else if (has("SMALLINT") || has("INT2")) {
    schema_ = make(Type::kInt16, optional);
  } else if (has("MEDIUMINT")) {
    schema_ = make(Type::kInt32, optional);
  } else if (has("INT")) {
    schema_ = make(Type::kInt64, optional);
  } else if (has("REAL") || has("FLOA") || has("DOUB")) {
    schema_ = make(Type::kFloat64, optional);
  } else if (has("DECIMAL") || has("NUMERIC")) {
    static const std::regex kScale(R"(\(\s*\d+\s*,\s*(\d+)\s*\))");
    std::smatch m;
    if (std::regex_search(t, m, kScale)) {
      scale_ = std::stoi(m[1].str());
      auto s = logicalSchema(Type::kBytes, optional, Schema::kDecimalName);
      s->parameters[std::string(Schema::kScaleParameter)] = std::to_string(scale_);
      schema_ = s;
      logical_ = Schema::Logical::kDecimal;
    } else {
      auto s = make(Type::kStruct, optional, Schema::kVariableScaleDecimalName);
      s->fields = {{"scale", Schema::of(Type::kInt32)}, {"value", Schema::of(Type::kBytes)}};
      schema_ = s;
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
    schema_ = make(Type::kBytes, optional);
  } else if (has("UUID")) {
    schema_ = make(Type::kString, optional, Schema::kUuidName);
  } else if (has("JSON")) {
    schema_ = make(Type::kString, optional, Schema::kJsonName);
  } else {
    schema_ = make(Type::kString, optional);
  }
}

Value SqliteColumn::read(const SQLite::Column& column) const {
  if (column.isNull()) return Value();
  const std::string text = column.isBlob() ? std::string() : column.getString();
  try {
    switch (logical_) {
      case Schema::Logical::kDecimal: {
        auto unscaled = Value::decimalFromString(text, scale_);
        if (!unscaled) throw std::invalid_argument(fmt::format("'{}' is not a decimal", text));
        return Value::bytes(std::move(*unscaled));
      }
      case Schema::Logical::kVariableScaleDecimal: {
        const auto point = text.find('.');
        const int32_t scale =
            point == std::string::npos ? 0 : static_cast<int32_t>(text.size() - point - 1);
        auto unscaled = Value::decimalFromString(text, scale);
        if (!unscaled) throw std::invalid_argument(fmt::format("'{}' is not a decimal", text));
        return Value::object(
            {{"scale", Value::integer(scale)}, {"value", Value::bytes(std::move(*unscaled))}});
      }
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
      default:
        return Value::string(column.isBlob()
                                 ? std::string(static_cast<const char*>(column.getBlob()),
                                               static_cast<size_t>(column.getBytes()))
                                 : text);
    }
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("column {}: {}", name_, e.what()));
  }
}

}  // namespace ksink::jdbc
