// Schema: Kafka Connect's schema model (org.apache.kafka.connect.data.Schema), as the JSON
// converter reads it from a `{"schema": …, "payload": …}` envelope and as the table sinks map it to
// columns.
//
// A Schema is an immutable value once built; converters hand out `std::shared_ptr<const Schema>`
// and reuse the same object for records that carry the same schema, so a sink may cache per-schema
// work (column layouts, prepared statements) by pointer. Safe to share between threads.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ksink {

class Value;

struct Schema {
  enum class Type {
    kInt8,
    kInt16,
    kInt32,
    kInt64,
    kFloat32,
    kFloat64,
    kBoolean,
    kString,
    kBytes,
    kArray,
    kMap,
    kStruct
  };
  // Connect's logical types, recognised by `name`.
  enum class Logical { kNone, kDecimal, kDate, kTime, kTimestamp };

  static constexpr std::string_view kDecimalName = "org.apache.kafka.connect.data.Decimal";
  static constexpr std::string_view kDateName = "org.apache.kafka.connect.data.Date";
  static constexpr std::string_view kTimeName = "org.apache.kafka.connect.data.Time";
  static constexpr std::string_view kTimestampName = "org.apache.kafka.connect.data.Timestamp";
  static constexpr std::string_view kScaleParameter = "scale";

  struct Field {
    std::string name;
    std::shared_ptr<const Schema> schema;
  };

  Type type = Type::kString;
  bool optional = false;
  std::string name;  // logical type or struct name; empty when none
  std::optional<int32_t> version;
  std::string doc;
  std::map<std::string, std::string> parameters;  // e.g. Decimal's "scale"
  std::shared_ptr<const Value> default_value;     // null = no default
  std::vector<Field> fields;                      // kStruct, in declaration order
  std::shared_ptr<const Schema> key_schema;       // kMap
  std::shared_ptr<const Schema> value_schema;     // kArray items, kMap values

  Logical logical() const;
  // Decimal's scale parameter (0 when absent or not a number).
  int32_t decimalScale() const;
  // The field named `name`, or nullptr.
  const Field* field(std::string_view field_name) const;
  // Not an array, map or struct: a single SQL column holds it as it is.
  bool isPrimitive() const {
    return type != Type::kArray && type != Type::kMap && type != Type::kStruct;
  }

  // Connect's lower-case type names ("int32", "struct", …), as in the JSON envelope.
  static std::string_view typeName(Type type);
  static std::optional<Type> typeFromName(std::string_view name);

  // Common schemas, shared instances.
  static std::shared_ptr<const Schema> of(Type type, bool optional = false);
};

// "int32", "optional string", "struct Order", "org.apache.kafka.connect.data.Decimal(scale=2)".
std::string format_as(const Schema& schema);

}  // namespace ksink

template <>
struct fmt::formatter<ksink::Schema> : fmt::formatter<std::string_view> {
  template <typename FormatContext>
  auto format(const ksink::Schema& s, FormatContext& ctx) const {
    return fmt::formatter<std::string_view>::format(ksink::format_as(s), ctx);
  }
};
