// CopyBinaryWriter: builds the data of a `COPY ... FROM STDIN (FORMAT binary)` stream.
//
// PostgreSQL's binary COPY format (doc/src/sgml/ref/copy.sgml, "Binary Format"): a signature and
// header, then per row an int16 field count and, per field, an int32 length (-1 = NULL) followed by
// the type's binary `*send` representation, all in network byte order; an int16 -1 trailer. The
// server does no text parsing for these rows, which is most of COPY's cost.
//
// The writer only appends bytes. A caller streams large batches by sending buffer() and calling
// clearBuffer() between rows. Writers of values that can be malformed (uuid, numeric, …) return
// false without writing anything, so the caller can fall back to the text format for the batch and
// let the server judge the value. Single-threaded value type.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ksink::postgres {

class CopyBinaryWriter {
 public:
  // Starts the stream with the signature and header.
  CopyBinaryWriter();

  void beginRow(int16_t fields);
  void null();
  void boolean(bool v);
  void int2(int16_t v);
  void int4(int32_t v);
  void int8(int64_t v);
  void float4(float v);
  void float8(double v);
  // text, varchar, bpchar, name, json, bytea: the bytes as they are.
  void bytes(std::string_view v);
  // jsonb: version byte 1, then the JSON text (the server still validates it).
  void jsonb(std::string_view json_text);
  // "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (also upper case, braces or no hyphens, as uuid_in).
  [[nodiscard]] bool uuid(std::string_view text);
  // A decimal number: [+-]digits[.digits][e[+-]digits], or NaN.
  [[nodiscard]] bool numeric(std::string_view text);
  // Days since 1970-01-01 (Connect's Date).
  void date(int32_t days_since_unix_epoch);
  // Microseconds since midnight.
  void time(int64_t micros);
  // Microseconds since 1970-01-01 00:00 UTC; the same bytes serve timestamp and timestamptz.
  void timestamp(int64_t micros_since_unix_epoch);
  // timestamptz from ISO-8601 text with an offset, as Debezium's ZonedTimestamp writes it:
  // "2024-03-01T10:15:30.123456Z", "…+01:00". Years 0001-9999 and up to six fractional digits
  // only; anything else (more digits, which the server rounds, "infinity") is left to the server.
  [[nodiscard]] bool timestamptz(std::string_view iso);
  // timetz from "10:15:30.123Z" / "10:15:30+05:30" (Debezium's ZonedTime), the same way.
  [[nodiscard]] bool timetz(std::string_view iso);
  // bit / varbit from the bit string's text, leftmost bit first ("0101").
  [[nodiscard]] bool varbit(std::string_view bits);

  // A one-dimensional array field: beginArray, then one field call per element, then endArray.
  // `has_null` must be true when any element is null.
  void beginArray(uint32_t element_oid, int32_t count, bool has_null);
  void endArray();

  // Ends the stream.
  void finish();

  std::string_view buffer() const { return buffer_; }
  size_t size() const { return buffer_.size(); }
  // Forgets the bytes already sent; capacity is kept.
  void clearBuffer() { buffer_.clear(); }
  // Drops everything written after the buffer had `size` bytes (a row abandoned halfway).
  void truncate(size_t size) {
    buffer_.resize(size);
    array_length_at_ = std::string::npos;
  }

 private:
  void put16(uint16_t v);
  void put32(uint32_t v);
  void put64(uint64_t v);
  void patch32(size_t at, uint32_t v);

  std::string buffer_;
  size_t array_length_at_ = std::string::npos;
};

}  // namespace ksink::postgres
