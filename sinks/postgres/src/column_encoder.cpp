#include "column_encoder.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <vector>

#include "pg_types.h"

namespace ksink::postgres {
namespace {

using Kind = Value::Kind;
using Logical = Schema::Logical;

std::string doubleText(double d) {
  // Spelled the way float8in and numeric_in both accept.
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  return fmt::format("{}", d);
}

bool isTextType(uint32_t oid) {
  return oid == PgTypes::kText || oid == PgTypes::kVarchar || oid == PgTypes::kBpchar ||
         oid == PgTypes::kName;
}

bool isNumberType(uint32_t oid) {
  return oid == PgTypes::kInt2 || oid == PgTypes::kInt4 || oid == PgTypes::kInt8 ||
         oid == PgTypes::kFloat4 || oid == PgTypes::kFloat8 || oid == PgTypes::kNumeric;
}

// Debezium's time logicals beyond Connect's own (whose text the sink has always written as it
// does below).
bool isDebeziumTemporal(Logical logical) {
  return logical == Logical::kMicroTime || logical == Logical::kNanoTime ||
         logical == Logical::kLocalTimestamp || logical == Logical::kMicroTimestamp ||
         logical == Logical::kNanoTimestamp;
}

// A VariableScaleDecimal struct's exact decimal text; nullopt when the struct is malformed.
std::optional<std::string> variableScaleDecimalText(const Value& value) {
  const Value* scale = value.find("scale");
  const Value* unscaled = value.find("value");
  if (!scale || !unscaled || scale->kind() != Kind::kInt || unscaled->kind() != Kind::kBytes ||
      unscaled->asBytes().empty() || scale->asInt() < std::numeric_limits<int32_t>::min() ||
      scale->asInt() > std::numeric_limits<int32_t>::max())
    return std::nullopt;
  return Value::decimalToString(unscaled->asBytes(), static_cast<int32_t>(scale->asInt()));
}

// Microseconds in an integer of a time or timestamp logical (epoch milliseconds when none).
std::optional<int64_t> micros(int64_t value, Logical logical) {
  const int64_t units = Schema::unitsPerSecond(logical);
  return Value::toMicros(value, units == 0 ? 1000 : units);
}

}  // namespace

ColumnEncoder::ColumnEncoder(uint32_t type_oid, uint32_t element_oid,
                             std::shared_ptr<const Schema> schema)
    : type_oid_(type_oid),
      element_oid_(element_oid),
      schema_(std::move(schema)),
      logical_(schema_ ? schema_->logical() : Logical::kNone) {}

ColumnEncoder ColumnEncoder::elementEncoder() const {
  return ColumnEncoder(element_oid_, 0, schema_ ? schema_->value_schema : nullptr);
}

std::optional<std::string> ColumnEncoder::textForm(const Value& value) const {
  switch (value.kind()) {
    case Kind::kNull:
      return std::nullopt;
    case Kind::kBoolean:
      return value.asBoolean() ? "true" : "false";
    case Kind::kInt: {
      const int64_t i = value.asInt();
      if (isDebeziumTemporal(logical_) && !isNumberType(type_oid_)) {
        // PostgreSQL keeps microseconds: nanoseconds are truncated here as in binary().
        if (const auto us = micros(i, logical_)) {
          if (Schema::isTimeOfDay(logical_)) return Value::timeToString(*us, 1000000);
          return Value::timestampToString(*us, 1000000) +
                 (type_oid_ == PgTypes::kTimestamptz ? "+00" : "");
        }
      }
      if (logical_ == Logical::kDate) return Value::dateToString(i);
      if (logical_ == Logical::kTime) return Value::timeToString(i);
      if (logical_ == Logical::kTimestamp || type_oid_ == PgTypes::kTimestamp ||
          type_oid_ == PgTypes::kTimestamptz)
        return Value::timestampToString(i) + (type_oid_ == PgTypes::kTimestamptz ? "+00" : "");
      return fmt::format("{}", i);
    }
    case Kind::kDouble:
      return doubleText(value.asDouble());
    case Kind::kString:
      return value.asString();
    case Kind::kBytes:
      if (logical_ == Logical::kDecimal)
        return Value::decimalToString(value.asBytes(), schema_->decimalScale());
      if (logical_ == Logical::kBits)
        return Value::bitsToString(value.asBytes(),
                                   schema_->intParameter(Schema::kLengthParameter));
      return value.asBytes();
    case Kind::kArray:
      if (element_oid_ != 0) {
        const auto element = elementEncoder();
        std::vector<std::optional<std::string>> items;
        items.reserve(value.asArray().size());
        for (const auto& v : value.asArray()) items.push_back(element.textForm(v));
        return CopyTextWriter::arrayLiteral(items);
      }
      return value.toJson();
    case Kind::kObject:
      if (logical_ == Logical::kVariableScaleDecimal && type_oid_ != PgTypes::kJson &&
          type_oid_ != PgTypes::kJsonb)
        if (auto decimal = variableScaleDecimalText(value)) return decimal;
      return value.toJson();
  }
  return std::nullopt;
}

void ColumnEncoder::text(CopyTextWriter& out, const Value& value) const {
  if (value.isNull()) return out.null();
  if (type_oid_ == PgTypes::kBytea &&
      (value.kind() == Kind::kBytes || value.kind() == Kind::kString))
    return out.bytea(value.kind() == Kind::kBytes ? value.asBytes() : value.asString());
  out.text(*textForm(value));
}

bool ColumnEncoder::binary(CopyBinaryWriter& out, const Value& value) const {
  if (value.isNull()) {
    out.null();
    return true;
  }
  const Kind kind = value.kind();
  if (element_oid_ != 0) {
    if (kind != Kind::kArray) return false;
    const auto& items = value.asArray();
    if (items.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max())) return false;
    bool has_null = false;
    for (const auto& v : items) has_null |= v.isNull();
    const auto element = elementEncoder();
    out.beginArray(element_oid_, static_cast<int32_t>(items.size()), has_null);
    for (const auto& v : items) {
      if (v.kind() == Kind::kArray) return false;  // multi-dimensional: let array_in decide
      if (!element.binary(out, v)) return false;
    }
    out.endArray();
    return true;
  }
  switch (type_oid_) {
    case PgTypes::kBool:
      if (kind != Kind::kBoolean) return false;
      out.boolean(value.asBoolean());
      return true;
    case PgTypes::kInt2:
      if (kind != Kind::kInt || value.asInt() < std::numeric_limits<int16_t>::min() ||
          value.asInt() > std::numeric_limits<int16_t>::max())
        return false;
      out.int2(static_cast<int16_t>(value.asInt()));
      return true;
    case PgTypes::kInt4:
      if (kind != Kind::kInt || value.asInt() < std::numeric_limits<int32_t>::min() ||
          value.asInt() > std::numeric_limits<int32_t>::max())
        return false;
      out.int4(static_cast<int32_t>(value.asInt()));
      return true;
    case PgTypes::kInt8:
      if (kind != Kind::kInt) return false;
      out.int8(value.asInt());
      return true;
    case PgTypes::kFloat4:
      if (kind == Kind::kInt) {
        out.float4(static_cast<float>(value.asInt()));
      } else if (kind == Kind::kDouble) {
        out.float4(static_cast<float>(value.asDouble()));
      } else {
        return false;
      }
      return true;
    case PgTypes::kFloat8:
      if (kind == Kind::kInt) {
        out.float8(static_cast<double>(value.asInt()));
      } else if (kind == Kind::kDouble) {
        out.float8(value.asDouble());
      } else {
        return false;
      }
      return true;
    case PgTypes::kNumeric:
      if (kind == Kind::kDouble && !std::isfinite(value.asDouble())) return false;
      if (kind == Kind::kInt || kind == Kind::kDouble || kind == Kind::kString ||
          (kind == Kind::kBytes && logical_ == Logical::kDecimal))
        return out.numeric(*textForm(value));
      if (kind == Kind::kObject && logical_ == Logical::kVariableScaleDecimal) {
        const auto decimal = variableScaleDecimalText(value);
        return decimal && out.numeric(*decimal);
      }
      return false;
    case PgTypes::kBytea:
      if (kind == Kind::kBytes && logical_ != Logical::kDecimal) {
        out.bytes(value.asBytes());
      } else if (kind == Kind::kString) {
        out.bytes(value.asString());
      } else {
        return false;
      }
      return true;
    case PgTypes::kJson:
      out.bytes(kind == Kind::kString ? value.asString() : value.toJson());
      return true;
    case PgTypes::kJsonb:
      out.jsonb(kind == Kind::kString ? value.asString() : value.toJson());
      return true;
    case PgTypes::kUuid:
      if (kind == Kind::kString) return out.uuid(value.asString());
      if (kind == Kind::kBytes && value.asBytes().size() == 16) {
        out.bytes(value.asBytes());
        return true;
      }
      return false;
    case PgTypes::kDate:
      if (kind != Kind::kInt || logical_ != Logical::kDate ||
          value.asInt() < std::numeric_limits<int32_t>::min() / 2 ||
          value.asInt() > std::numeric_limits<int32_t>::max() / 2)
        return false;
      out.date(static_cast<int32_t>(value.asInt()));
      return true;
    case PgTypes::kTime:
      if (kind != Kind::kInt || !Schema::isTimeOfDay(logical_)) return false;
      if (logical_ == Logical::kTime) {
        out.time(value.asInt() * 1000);
        return true;
      }
      // 24:00:00 is a valid time; anything outside the day the server should judge, as text.
      if (const auto us = micros(value.asInt(), logical_);
          us && *us >= 0 && *us <= int64_t{86400} * 1000000) {
        out.time(*us);
        return true;
      }
      return false;
    case PgTypes::kTimestamp:
    case PgTypes::kTimestamptz:
      if (kind == Kind::kString && logical_ == Logical::kZonedTimestamp &&
          type_oid_ == PgTypes::kTimestamptz)
        return out.timestamptz(value.asString());
      // Epoch milliseconds unless the schema says another unit; beyond ±292,000 years the
      // microseconds would overflow.
      if (kind != Kind::kInt) return false;
      if (const auto us = micros(value.asInt(), logical_)) {
        out.timestamp(*us);
        return true;
      }
      return false;
    case PgTypes::kTimetz:
      if (kind != Kind::kString || logical_ != Logical::kZonedTime) return false;
      return out.timetz(value.asString());
    case PgTypes::kBit:
    case PgTypes::kVarbit:
      if (kind == Kind::kString) return out.varbit(value.asString());
      if (kind != Kind::kBytes || logical_ != Logical::kBits) return false;
      return out.varbit(*textForm(value));
    case PgTypes::kXml:
      // xml_recv reads the document's text (in its declared encoding, UTF-8 by default) and
      // still parses it.
      if (kind != Kind::kString) return false;
      out.bytes(value.asString());
      return true;
    default:
      if (isTextType(type_oid_)) {
        if (kind == Kind::kString) {
          out.bytes(value.asString());
          return true;
        }
        if (kind == Kind::kBytes && logical_ != Logical::kDecimal && logical_ != Logical::kBits)
          return false;
        out.bytes(*textForm(value));
        return true;
      }
      return false;
  }
}

}  // namespace ksink::postgres
