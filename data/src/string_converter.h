// StringConverter: Connect's org.apache.kafka.connect.storage.StringConverter — the bytes as an
// optional string (UTF-8 is not checked, as in Connect).
#pragma once

#include <string>

#include "ksink/converter.h"
#include "transforms/java_date.h"
#include "transforms/java_float.h"

namespace ksink {

class StringConverter final : public Converter {
 public:
  SchemaAndValue toConnectData(std::string_view, std::optional<std::string_view> data) override {
    if (!data) return {Schema::of(Schema::Type::kString, true), Value()};
    return {Schema::of(Schema::Type::kString, true), Value::string(std::string(*data))};
  }
  // Connect's StringConverter writes the value's text (Java's toString): strings as they are,
  // integers in decimal, booleans as true/false, floating point as Java writes it, a Decimal as
  // BigDecimal writes it ("1E-8"), a Date, Time or Timestamp as java.util.Date writes it in UTC
  // ("Sat Jan 08 00:00:00 UTC 2022"); nullopt for a null. Other bytes, arrays, maps and structs
  // have no text Connect users rely on: refused.
  std::optional<std::string> fromConnectData(std::string_view,
                                             const SchemaAndValue& data) override {
    const Value& v = data.value;
    const auto logical = data.schema ? data.schema->connectLogical() : Schema::Logical::kNone;
    if (logical == Schema::Logical::kDecimal && v.kind() == Value::Kind::kBytes)
      return Value::decimalToJavaString(v.asBytes(), data.schema->decimalScale());
    if (v.kind() == Value::Kind::kInt && logical == Schema::Logical::kDate)
      return detail::javaDateToString(v.asInt() * 86400000);
    if (v.kind() == Value::Kind::kInt &&
        (logical == Schema::Logical::kTime || logical == Schema::Logical::kTimestamp))
      return detail::javaDateToString(v.asInt());
    switch (v.kind()) {
      case Value::Kind::kNull:
        return std::nullopt;
      case Value::Kind::kString:
        return std::string(v.asString());
      case Value::Kind::kInt:
        return std::to_string(v.asInt());
      case Value::Kind::kBoolean:
        return std::string(v.asBoolean() ? "true" : "false");
      case Value::Kind::kDouble:
        return detail::javaFloatToString(
            v.asDouble(), data.schema && data.schema->type == Schema::Type::kFloat32);
      default:
        throw ConversionError(
            "StringConverter writes strings, numbers and booleans, not bytes, arrays, maps or "
            "structs");
    }
  }
};

}  // namespace ksink
