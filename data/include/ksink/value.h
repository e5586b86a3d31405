// Value: one converted datum, as a Kafka Connect converter produces it, schema-free:
// null | boolean | int64 | double | string | bytes | array | object (ordered name/value pairs).
//
// Logical types keep Connect's representation: Decimal = unscaled two's-complement big-endian bytes
// (the scale is in the schema), Date = days since the epoch, Time = milliseconds of the day,
// Timestamp = milliseconds since the epoch (all as int64); Debezium's likewise (Schema::Logical).
// The static helpers turn them into the text SQL databases accept. A struct value is an object
// whose entries follow the schema's field order, one entry per field.
//
// SchemaAndValue pairs a value with its schema; schema == nullptr means schemaless (e.g. a plain
// JSON object read with schemas.enable=false).
//
// Plain value types: copy or move them freely; a const Value is safe to read from several threads.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "ksink/schema.h"

namespace ksink {

class Value {
 public:
  enum class Kind { kNull, kBoolean, kInt, kDouble, kString, kBytes, kArray, kObject };
  using Array = std::vector<Value>;
  using Object = std::vector<std::pair<std::string, Value>>;

  Value() = default;  // null
  static Value boolean(bool b) { return Value(Storage(std::in_place_index<1>, b)); }
  static Value integer(int64_t i) { return Value(Storage(std::in_place_index<2>, i)); }
  static Value floating(double d) { return Value(Storage(std::in_place_index<3>, d)); }
  static Value string(std::string s) {
    return Value(Storage(std::in_place_index<4>, std::move(s)));
  }
  static Value bytes(std::string b) {
    return Value(Storage(std::in_place_index<5>, Bytes{std::move(b)}));
  }
  static Value array(Array a) { return Value(Storage(std::in_place_index<6>, std::move(a))); }
  static Value object(Object o) { return Value(Storage(std::in_place_index<7>, std::move(o))); }

  Kind kind() const { return static_cast<Kind>(v_.index()); }
  bool isNull() const { return kind() == Kind::kNull; }

  // Accessors; calling one for another kind is a programming error (std::bad_variant_access).
  bool asBoolean() const { return std::get<1>(v_); }
  int64_t asInt() const { return std::get<2>(v_); }
  double asDouble() const { return std::get<3>(v_); }
  const std::string& asString() const { return std::get<4>(v_); }
  const std::string& asBytes() const { return std::get<5>(v_).data; }
  const Array& asArray() const { return std::get<6>(v_); }
  const Object& asObject() const { return std::get<7>(v_); }
  Object& asObject() { return std::get<7>(v_); }

  // The entry named `name` of an object, or nullptr (also when this is not an object).
  const Value* find(std::string_view name) const;

  // Compact JSON text (bytes as base64, as Connect's JsonConverter writes them).
  std::string toJson() const;

  // A decimal's size is work out of proportion to its bytes (a scale of 2000000000 is 2 GB of
  // text; digits convert in quadratic time), so it is bounded: a scale within ±16383 (the most
  // PostgreSQL's numeric keeps after the point), at most 4096 digits, at most 2048 unscaled bytes
  // (any 4096-digit number fits). Beyond them a value is a bad record (ConversionError).
  static constexpr int64_t kMaxDecimalScale = 16383;
  static constexpr size_t kMaxDecimalDigits = 4096;
  static constexpr size_t kMaxDecimalBytes = 2048;
  // Why a decimal of `unscaled_bytes` bytes at `scale` (each checked when given) is beyond those
  // bounds; nullopt within them. The one check every reader of decimals applies.
  static std::optional<std::string> decimalBeyondBounds(std::optional<size_t> unscaled_bytes,
                                                        std::optional<int64_t> scale);

  // Text forms of Connect's logical values, as SQL accepts them.
  // "-12.345" for unscaled bytes of -12345 and scale 3. Throws ConversionError beyond the bounds.
  static std::string decimalToString(std::string_view unscaled, int32_t scale);
  // Java's BigDecimal.toString(), which Connect's Cast, StringConverter and the JDBC sinks' DDL
  // defaults write: the plain form when the scale is not negative and the adjusted exponent
  // (digits − 1 − scale) is at least −6, else one digit, the rest as a fraction and the
  // exponent: "1E-8" (1 at scale 8), "5E+3" (5 at scale −3), "0.000001", "-1.5E-7".
  static std::string decimalToJavaString(std::string_view unscaled, int32_t scale);
  // The unscaled bytes of a decimal number's text at `scale` ("1.5" at scale 2 → 150; Java's
  // exponent form too: "1E-8" at scale 8 → 1, "5E+3" at scale -3 → 5); nullopt when `text` is not
  // a decimal number, is more precise than `scale`, or is beyond the bounds.
  static std::optional<std::string> decimalFromString(std::string_view text, int32_t scale);
  static std::string dateToString(int64_t days);               // "2024-02-29"
  static std::string timeToString(int64_t millis_of_day);      // "13:45:07.250"
  static std::string timestampToString(int64_t epoch_millis);  // "2024-02-29 13:45:07.250" (UTC)
  // The same for values counted in `units_per_second` (1000, 1000000 or 1000000000, as
  // Schema::unitsPerSecond gives), with all of the unit's fractional digits: "13:45:07.250000"
  // for 49507250000 µs. A time of exactly one day is "24:00:00…" (SQL's end of day, which
  // Debezium's sources can hold); other times outside the day wrap around as timeToString's.
  static std::string timeToString(int64_t since_midnight, int64_t units_per_second);
  static std::string timestampToString(int64_t since_epoch, int64_t units_per_second);
  // Microseconds in a value counted in `units_per_second`, nanoseconds truncated toward the
  // past (so the text keeps the leading digits); nullopt when they overflow int64.
  static std::optional<int64_t> toMicros(int64_t value, int64_t units_per_second);
  // Debezium's Bits (a little-endian bit set: bit i of the source's bit string, counted from its
  // right end, is bit i % 8 of byte i / 8) as SQL's bit string text, leftmost bit first: "0101".
  // `length` (the schema's "length" parameter, the column's declared bits) pads it with leading
  // zeros, which the bytes do not keep; without a usable one the string has the bits up to the
  // highest set one ("0" for none).
  static std::string bitsToString(std::string_view little_endian, std::optional<int64_t> length);

  friend bool operator==(const Value&, const Value&) = default;

 private:
  struct Bytes {
    std::string data;
    friend bool operator==(const Bytes&, const Bytes&) = default;
  };
  using Storage =
      std::variant<std::monostate, bool, int64_t, double, std::string, Bytes, Array, Object>;
  explicit Value(Storage v) : v_(std::move(v)) {}

  Storage v_;
};

struct SchemaAndValue {
  std::shared_ptr<const Schema> schema;  // nullptr = schemaless
  Value value;
};

}  // namespace ksink
