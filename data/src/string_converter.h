// StringConverter: Connect's org.apache.kafka.connect.storage.StringConverter — the bytes as an
// optional string (UTF-8 is not checked, as in Connect).
#pragma once

#include <string>

#include "ksink/converter.h"
#include "transforms/java_float.h"

namespace ksink {

class StringConverter final : public Converter {
 public:
  SchemaAndValue toConnectData(std::string_view, std::optional<std::string_view> data) override {
    if (!data) return {Schema::of(Schema::Type::kString, true), Value()};
    return {Schema::of(Schema::Type::kString, true), Value::string(std::string(*data))};
  }
  // Connect's StringConverter writes the value's text (Java's toString): strings as they are,
  // integers in decimal, booleans as true/false, floating point as Java writes it; nullopt for a
  // null. Bytes, arrays, maps and structs have no text Connect users rely on: refused.
  std::optional<std::string> fromConnectData(std::string_view,
                                             const SchemaAndValue& data) override {
    const Value& v = data.value;
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
