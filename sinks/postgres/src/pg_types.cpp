#include "pg_types.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "ksink/db/sql_identifier.h"
#include "ksink/value.h"

namespace ksink::postgres {

namespace {

// The Debezium JDBC sink's type where it differs from the Confluent-style one; nullopt where not.
std::optional<std::string> debeziumColumnType(const Schema& schema) {
  using Logical = Schema::Logical;
  switch (schema.logical()) {
    case Logical::kDecimal: {
      const auto precision = schema.intParameter("connect.decimal.precision");
      return fmt::format("decimal({},{})", precision ? std::min<int64_t>(*precision, 38) : 38,
                         std::max(schema.decimalScale(), 0));
    }
    case Logical::kTime:
    case Logical::kMicroTime:
    case Logical::kNanoTime:
      return "time(6)";
    case Logical::kTimestamp:
    case Logical::kLocalTimestamp:
    case Logical::kMicroTimestamp:
    case Logical::kNanoTimestamp:
      return "timestamp(6)";
    case Logical::kZonedTimestamp:
      return "timestamp(6) with time zone";
    case Logical::kZonedTime:
      return "time(6) with time zone";
    case Logical::kJson:
      return "json";
    default:
      return std::nullopt;
  }
}

}  // namespace

std::string PgTypes::columnType(const Schema& schema, TableSinkConfig::TableStyle style) {
  using Type = Schema::Type;
  using Logical = Schema::Logical;
  if (style == TableSinkConfig::TableStyle::kDebezium)
    if (auto type = debeziumColumnType(schema)) return *type;
  switch (schema.logical()) {
    case Logical::kDecimal:
    case Logical::kVariableScaleDecimal:
      return "numeric";
    case Logical::kDate:
      return "date";
    case Logical::kTime:
    case Logical::kMicroTime:
    case Logical::kNanoTime:
      return "time";
    case Logical::kTimestamp:
    case Logical::kZonedTimestamp:
      return "timestamptz";
    case Logical::kLocalTimestamp:
    case Logical::kMicroTimestamp:
    case Logical::kNanoTimestamp:
      return "timestamp";
    case Logical::kZonedTime:
      return "timetz";
    case Logical::kUuid:
      return "uuid";
    case Logical::kJson:
      return "jsonb";
    case Logical::kXml:
      return "xml";
    case Logical::kEnum:
    case Logical::kEnumSet:
      return "text";
    case Logical::kBits:
      // Not bit(n): a value whose schema has no usable "length" is as wide as its highest set
      // bit, so widths can vary.
      return "bit varying";
    case Logical::kNone:
      break;
  }
  switch (schema.type) {
    case Type::kInt8:
    case Type::kInt16:
      return "smallint";
    case Type::kInt32:
      return "integer";
    case Type::kInt64:
      return "bigint";
    case Type::kFloat32:
      return "real";
    case Type::kFloat64:
      return "double precision";
    case Type::kBoolean:
      return "boolean";
    case Type::kString:
      return "text";
    case Type::kBytes:
      return "bytea";
    case Type::kArray:
      if (schema.value_schema && (schema.value_schema->isPrimitive() ||
                                  schema.value_schema->logical() == Logical::kVariableScaleDecimal))
        return columnType(*schema.value_schema, style) + "[]";
      return "jsonb";
    case Type::kMap:
    case Type::kStruct:
      return "jsonb";
  }
  return "text";
}

std::optional<std::string> PgTypes::defaultLiteral(const Schema& schema) {
  using Logical = Schema::Logical;
  if (!schema.default_value || schema.default_value->isNull()) return std::nullopt;
  const Value& v = *schema.default_value;
  switch (schema.logical()) {
    case Logical::kDecimal:
      if (v.kind() != Value::Kind::kBytes) return std::nullopt;
      return Value::decimalToJavaString(v.asBytes(), schema.decimalScale());
    case Logical::kDate:
      if (v.kind() != Value::Kind::kInt) return std::nullopt;
      return quoteLiteral(Value::dateToString(v.asInt()));
    case Logical::kTime:
      if (v.kind() != Value::Kind::kInt) return std::nullopt;
      return quoteLiteral(Value::timeToString(v.asInt()));
    case Logical::kTimestamp:  // an instant: said in UTC for either column type
      if (v.kind() != Value::Kind::kInt) return std::nullopt;
      return quoteLiteral(Value::timestampToString(v.asInt()) + "+00");
    case Logical::kNone:
    case Logical::kZonedTimestamp:
    case Logical::kZonedTime:
    case Logical::kUuid:
    case Logical::kJson:
    case Logical::kXml:
    case Logical::kEnum:
    case Logical::kEnumSet:
      break;  // their text is the column's input
    default:
      return std::nullopt;
  }
  switch (v.kind()) {
    case Value::Kind::kBoolean:
      return v.asBoolean() ? "true" : "false";
    case Value::Kind::kInt:
      return std::to_string(v.asInt());
    case Value::Kind::kDouble: {
      const double d = v.asDouble();
      if (!std::isfinite(d))
        return quoteLiteral(std::isnan(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity");
      // The shortest text that reads back as the value, at the column's width.
      return schema.type == Schema::Type::kFloat32 ? fmt::format("{}", static_cast<float>(d))
                                                   : fmt::format("{}", d);
    }
    case Value::Kind::kString:
      return quoteLiteral(v.asString());
    case Value::Kind::kBytes: {
      std::string hex = "\\x";
      for (unsigned char c : v.asBytes()) hex += fmt::format("{:02x}", c);
      return quoteLiteral(hex);
    }
    default:
      return std::nullopt;
  }
}

bool PgTypes::convertedViaZone(uint32_t column_oid, const Schema& schema,
                               bool timestamps_via_zone) {
  if (!timestamps_via_zone || column_oid != kTimestamp) return false;
  const auto logical = schema.logical();
  return logical != Schema::Logical::kLocalTimestamp &&
         logical != Schema::Logical::kMicroTimestamp && logical != Schema::Logical::kNanoTimestamp;
}

}  // namespace ksink::postgres
