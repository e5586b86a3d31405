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
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ksink/detail/format_as_formatter.h"

namespace ksink {

class Value;

// A schema's parameters: string keys and values in the order they were added, as Connect keeps
// them (a LinkedHashMap): the JSON converter writes them in that order and an Avro enum's symbols
// keep theirs. Setting a key again keeps its place. Equality ignores the order, as Java's Map's.
class SchemaParameters {
 public:
  using value_type = std::pair<std::string, std::string>;
  using iterator = std::vector<value_type>::iterator;
  using const_iterator = std::vector<value_type>::const_iterator;

  SchemaParameters() = default;
  SchemaParameters(std::initializer_list<value_type> entries) {
    for (const auto& [key, value] : entries) (*this)[key] = value;
  }

  std::string& operator[](std::string_view key) {
    if (auto it = find(key); it != end()) return it->second;
    return entries_.emplace_back(std::string(key), std::string()).second;
  }
  // Throws std::out_of_range for a key that is not there.
  const std::string& at(std::string_view key) const {
    if (auto it = find(key); it != end()) return it->second;
    throw std::out_of_range("no schema parameter " + std::string(key));
  }
  iterator find(std::string_view key) {
    for (auto it = entries_.begin(); it != entries_.end(); ++it)
      if (it->first == key) return it;
    return entries_.end();
  }
  const_iterator find(std::string_view key) const {
    for (auto it = entries_.begin(); it != entries_.end(); ++it)
      if (it->first == key) return it;
    return entries_.end();
  }
  bool contains(std::string_view key) const { return find(key) != end(); }
  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }
  iterator begin() { return entries_.begin(); }
  iterator end() { return entries_.end(); }
  const_iterator begin() const { return entries_.begin(); }
  const_iterator end() const { return entries_.end(); }

  friend bool operator==(const SchemaParameters& a, const SchemaParameters& b) {
    if (a.size() != b.size()) return false;
    for (const auto& [key, value] : a)
      if (auto it = b.find(key); it == b.end() || it->second != value) return false;
    return true;
  }

 private:
  std::vector<value_type> entries_;
};

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
  // Logical types, recognised by `name`: Connect's own and the ones Debezium's connectors write
  // (with decimal.handling.mode=precise and time.precision.mode=adaptive or connect). Names that
  // share a representation share a value: io.debezium.time.Date is int32 days like Connect's
  // Date, io.debezium.time.Time int32 milliseconds like Connect's Time.
  enum class Logical {
    kNone,
    kDecimal,    // bytes: unscaled two's complement big-endian; the "scale" parameter
    kDate,       // int32 days since 1970-01-01
    kTime,       // int32 milliseconds of the day
    kTimestamp,  // int64 milliseconds since 1970-01-01 UTC: an instant
    kMicroTime,  // int64 microseconds of the day
    kNanoTime,   // int64 nanoseconds of the day
    // Wall-clock date and time without a zone (a source's `timestamp` column), counted as if it
    // were UTC: int64 milliseconds, microseconds or nanoseconds since 1970-01-01 00:00.
    kLocalTimestamp,
    kMicroTimestamp,
    kNanoTimestamp,
    kZonedTimestamp,        // string, ISO-8601 with an offset: "2024-03-01T10:15:30.123456Z"
    kZonedTime,             // string, ISO-8601 time with an offset: "10:15:30.123Z"
    kUuid,                  // string, 8-4-4-4-12 hex digits
    kJson,                  // string holding a JSON document
    kXml,                   // string holding an XML document
    kEnum,                  // string: one of the "allowed" parameter's values
    kEnumSet,               // string: comma-separated values of "allowed"
    kBits,                  // bytes: little-endian bit set; the "length" parameter (bits)
    kVariableScaleDecimal,  // struct {scale int32, value bytes (unscaled as Decimal's)}
  };

  static constexpr std::string_view kDecimalName = "org.apache.kafka.connect.data.Decimal";
  static constexpr std::string_view kDateName = "org.apache.kafka.connect.data.Date";
  static constexpr std::string_view kTimeName = "org.apache.kafka.connect.data.Time";
  static constexpr std::string_view kTimestampName = "org.apache.kafka.connect.data.Timestamp";
  static constexpr std::string_view kScaleParameter = "scale";

  static constexpr std::string_view kDebeziumDateName = "io.debezium.time.Date";
  static constexpr std::string_view kDebeziumTimeName = "io.debezium.time.Time";
  static constexpr std::string_view kMicroTimeName = "io.debezium.time.MicroTime";
  static constexpr std::string_view kNanoTimeName = "io.debezium.time.NanoTime";
  static constexpr std::string_view kDebeziumTimestampName = "io.debezium.time.Timestamp";
  static constexpr std::string_view kMicroTimestampName = "io.debezium.time.MicroTimestamp";
  static constexpr std::string_view kNanoTimestampName = "io.debezium.time.NanoTimestamp";
  static constexpr std::string_view kZonedTimestampName = "io.debezium.time.ZonedTimestamp";
  static constexpr std::string_view kZonedTimeName = "io.debezium.time.ZonedTime";
  static constexpr std::string_view kUuidName = "io.debezium.data.Uuid";
  static constexpr std::string_view kJsonName = "io.debezium.data.Json";
  static constexpr std::string_view kXmlName = "io.debezium.data.Xml";
  static constexpr std::string_view kEnumName = "io.debezium.data.Enum";
  static constexpr std::string_view kEnumSetName = "io.debezium.data.EnumSet";
  static constexpr std::string_view kBitsName = "io.debezium.data.Bits";
  static constexpr std::string_view kVariableScaleDecimalName =
      "io.debezium.data.VariableScaleDecimal";
  static constexpr std::string_view kLengthParameter = "length";

  struct Field {
    std::string name;
    std::shared_ptr<const Schema> schema;
  };

  Type type = Type::kString;
  bool optional = false;
  std::string name;  // logical type or struct name; empty when none
  std::optional<int32_t> version;
  std::string doc;
  SchemaParameters parameters;                 // e.g. Decimal's "scale"
  std::shared_ptr<const Value> default_value;  // null = no default
  std::vector<Field> fields;                   // kStruct, in declaration order
  std::shared_ptr<const Schema> key_schema;    // kMap
  std::shared_ptr<const Schema> value_schema;  // kArray items, kMap values

  // The logical type `name` stands for; kNone for an unknown name. Debezium's names count only on
  // a schema of their representation's type (int32/int64, string, bytes or struct as above), so a
  // sink never reads, say, a string as epoch milliseconds; Connect's are taken by name alone, as
  // they always were.
  Logical logical() const;
  // Only Connect's own logical types (Decimal, Date, Time, Timestamp by their Connect names),
  // kNone for everything else: what Connect's transforms see, which know nothing of Debezium's
  // names and treat such a field as its plain type.
  Logical connectLogical() const;
  // Decimal's scale parameter (0 when absent or not a number).
  int32_t decimalScale() const;
  // An integer parameter (Bits' "length"); nullopt when absent or not a number.
  std::optional<int64_t> intParameter(std::string_view parameter) const;
  // For the integer time and timestamp logicals: how many of the value's units make a second
  // (1000, 1000000 or 1000000000); 0 for other schemas.
  static int64_t unitsPerSecond(Logical logical);
  // kTime, kMicroTime, kNanoTime.
  static bool isTimeOfDay(Logical logical);
  // kTimestamp, kLocalTimestamp, kMicroTimestamp, kNanoTimestamp.
  static bool isEpochTimestamp(Logical logical);
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

  // The type of a value that has no schema, as Connect's Values.inferSchema gives it: integers
  // int64, floating point float64, objects maps; a null has none, and is given string (which
  // holds anything a later value brings).
  static Type inferredType(const Value& value);
};

// "int32", "optional string", "struct Order", "org.apache.kafka.connect.data.Decimal(scale=2)".
std::string format_as(const Schema& schema);

}  // namespace ksink

template <>
struct fmt::formatter<ksink::Schema> : ksink::detail::FormatAsFormatter<ksink::Schema> {};
