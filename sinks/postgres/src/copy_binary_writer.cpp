#include "copy_binary_writer.h"

#include <bit>
#include <cctype>
#include <cstring>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ksink/iso_time_reader.h"

namespace ksink::postgres {
namespace {

// PostgreSQL's epoch is 2000-01-01; Connect's and Unix's is 1970-01-01.
constexpr int32_t kPgEpochDays = 10957;
constexpr int64_t kPgEpochMicros = int64_t{kPgEpochDays} * 86400 * 1000000;

constexpr uint16_t kNumericPos = 0x0000;
constexpr uint16_t kNumericNeg = 0x4000;
constexpr uint16_t kNumericNan = 0xC000;
// numeric's dscale field holds at most this (NUMERIC_DSCALE_MASK).
constexpr int kNumericMaxScale = 0x3FFF;

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// A decimal's text as its sign, its significant digits (integer part then fraction) and where
// the decimal point falls among them once the exponent is applied; nullopt when the text is not a
// decimal.
struct DecimalText {
  bool negative = false;
  std::string digits;
  int64_t point = 0;  // digits before the point; may be <= 0 or past the digits
};

std::optional<DecimalText> parseDecimal(std::string_view text) {
  DecimalText out;
  size_t i = 0;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) out.negative = text[i++] == '-';
  int64_t point = -1;
  bool any = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c >= '0' && c <= '9') {
      out.digits.push_back(c);
      any = true;
    } else if (c == '.' && point < 0) {
      point = static_cast<int64_t>(out.digits.size());
    } else {
      break;
    }
  }
  if (!any) return std::nullopt;
  if (point < 0) point = static_cast<int64_t>(out.digits.size());
  int64_t exponent = 0;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) exp_negative = text[i++] == '-';
    if (i == text.size()) return std::nullopt;
    for (; i < text.size(); ++i) {
      if (text[i] < '0' || text[i] > '9' || exponent > 100000) return std::nullopt;
      exponent = exponent * 10 + (text[i] - '0');
    }
    if (exp_negative) exponent = -exponent;
  }
  if (i != text.size()) return std::nullopt;
  out.point = point + exponent;
  return out;
}

// The digits in base-10000 groups aligned around the decimal point (the integer part padded on
// the left, the fraction on the right, to multiples of four digits), and how many of the groups
// are the integer part's.
std::pair<std::vector<uint16_t>, int64_t> base10000Groups(const DecimalText& d) {
  int64_t int_digits = d.point;
  int64_t lead_pad = 0;
  if (int_digits > 0) {
    lead_pad = (4 - int_digits % 4) % 4;
  } else {
    // 0.00ddd: the fraction starts |int_digits| zeros after the point.
    lead_pad = -int_digits;
    int_digits = 0;
  }
  std::string aligned(static_cast<size_t>(lead_pad), '0');
  aligned += d.digits;
  if (static_cast<int64_t>(d.digits.size()) < d.point)
    aligned.append(static_cast<size_t>(d.point - static_cast<int64_t>(d.digits.size())), '0');
  while (aligned.size() % 4) aligned.push_back('0');
  std::vector<uint16_t> groups;
  groups.reserve(aligned.size() / 4);
  for (size_t g = 0; g < aligned.size(); g += 4) {
    const char* p = aligned.data() + g;
    groups.push_back(static_cast<uint16_t>((p[0] - '0') * 1000 + (p[1] - '0') * 100 +
                                           (p[2] - '0') * 10 + (p[3] - '0')));
  }
  return {std::move(groups), int_digits > 0 ? (int_digits + lead_pad) / 4 : 0};
}

}  // namespace

CopyBinaryWriter::CopyBinaryWriter() {
  static constexpr char kSignature[] = "PGCOPY\n\377\r\n";  // + the terminating '\0': 11 bytes
  buffer_.append(kSignature, sizeof kSignature);
  put32(0);  // flags
  put32(0);  // header extension length
}

void CopyBinaryWriter::put16(uint16_t v) {
  const char b[2] = {static_cast<char>(v >> 8), static_cast<char>(v)};
  buffer_.append(b, 2);
}

void CopyBinaryWriter::put32(uint32_t v) {
  const char b[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16),
                     static_cast<char>(v >> 8), static_cast<char>(v)};
  buffer_.append(b, 4);
}

void CopyBinaryWriter::put64(uint64_t v) {
  put32(static_cast<uint32_t>(v >> 32));
  put32(static_cast<uint32_t>(v));
}

void CopyBinaryWriter::patch32(size_t at, uint32_t v) {
  buffer_[at] = static_cast<char>(v >> 24);
  buffer_[at + 1] = static_cast<char>(v >> 16);
  buffer_[at + 2] = static_cast<char>(v >> 8);
  buffer_[at + 3] = static_cast<char>(v);
}

void CopyBinaryWriter::beginRow(int16_t fields) {
  put16(static_cast<uint16_t>(fields));
}

void CopyBinaryWriter::null() {
  put32(0xFFFFFFFFu);
}

void CopyBinaryWriter::boolean(bool v) {
  put32(1);
  buffer_.push_back(v ? 1 : 0);
}

void CopyBinaryWriter::int2(int16_t v) {
  put32(2);
  put16(static_cast<uint16_t>(v));
}

void CopyBinaryWriter::int4(int32_t v) {
  put32(4);
  put32(static_cast<uint32_t>(v));
}

void CopyBinaryWriter::int8(int64_t v) {
  put32(8);
  put64(static_cast<uint64_t>(v));
}

void CopyBinaryWriter::float4(float v) {
  put32(4);
  put32(std::bit_cast<uint32_t>(v));
}

void CopyBinaryWriter::float8(double v) {
  put32(8);
  put64(std::bit_cast<uint64_t>(v));
}

void CopyBinaryWriter::bytes(std::string_view v) {
  put32(static_cast<uint32_t>(v.size()));
  buffer_.append(v);
}

void CopyBinaryWriter::jsonb(std::string_view json_text) {
  put32(static_cast<uint32_t>(json_text.size() + 1));
  buffer_.push_back(1);
  buffer_.append(json_text);
}

bool CopyBinaryWriter::uuid(std::string_view text) {
  // The canonical 8-4-4-4-12 form or 32 bare hex digits, optionally in braces. uuid_in accepts a
  // few more spellings; those go to the server as text instead.
  if (text.size() >= 2 && text.front() == '{' && text.back() == '}')
    text = text.substr(1, text.size() - 2);
  const bool hyphens = text.size() == 36;
  if (!hyphens && text.size() != 32) return false;
  char out[16];
  size_t pos = 0;
  for (int n = 0; n < 16; ++n) {
    if (hyphens && (pos == 8 || pos == 13 || pos == 18 || pos == 23)) {
      if (text[pos] != '-') return false;
      ++pos;
    }
    const int hi = hexValue(text[pos]), lo = hexValue(text[pos + 1]);
    if (hi < 0 || lo < 0) return false;
    out[n] = static_cast<char>(hi * 16 + lo);
    pos += 2;
  }
  put32(16);
  buffer_.append(out, 16);
  return true;
}

bool CopyBinaryWriter::numeric(std::string_view text) {
  if (text == "NaN" || text == "nan") {
    put32(8);
    put16(0);
    put16(0);
    put16(kNumericNan);
    put16(0);
    return true;
  }
  const auto decimal = parseDecimal(text);
  if (!decimal) return false;
  const int64_t scale =
      std::max<int64_t>(0, static_cast<int64_t>(decimal->digits.size()) - decimal->point);
  if (scale > kNumericMaxScale || decimal->point > 4 * 32767) return false;
  const auto [groups, int_groups] = base10000Groups(*decimal);
  bool negative = decimal->negative;
  int64_t weight = int_groups - 1;
  size_t first = 0;
  while (first < groups.size() && groups[first] == 0) {
    ++first;
    --weight;
  }
  size_t last = groups.size();
  while (last > first && groups[last - 1] == 0) --last;
  const auto ndigits = static_cast<uint16_t>(last - first);
  if (ndigits == 0) {
    weight = 0;
    negative = false;
  }
  put32(8 + 2u * ndigits);
  put16(ndigits);
  put16(static_cast<uint16_t>(static_cast<int16_t>(weight)));
  put16(negative ? kNumericNeg : kNumericPos);
  put16(static_cast<uint16_t>(scale));
  for (size_t g = first; g < last; ++g) put16(groups[g]);
  return true;
}

void CopyBinaryWriter::date(int32_t days_since_unix_epoch) {
  int4(days_since_unix_epoch - kPgEpochDays);
}

void CopyBinaryWriter::time(int64_t micros) {
  int8(micros);
}

void CopyBinaryWriter::timestamp(int64_t micros_since_unix_epoch) {
  int8(micros_since_unix_epoch - kPgEpochMicros);
}

bool CopyBinaryWriter::timestamptz(std::string_view iso) {
  IsoTimeReader r(iso);
  int64_t days = 0, nanos = 0, offset = 0;
  // PostgreSQL keeps microseconds: a finer time is left to the server to round.
  if (!r.date(days) || !(r.literal('T') || r.literal(' ')) || !r.time(nanos) || nanos % 1000 != 0 ||
      !r.offset(offset) || !r.done())
    return false;
  timestamp(days * 86400 * 1000000 + nanos / 1000 - offset * 1000000);
  return true;
}

bool CopyBinaryWriter::timetz(std::string_view iso) {
  IsoTimeReader r(iso);
  int64_t nanos = 0, offset = 0;
  if (!r.time(nanos) || nanos % 1000 != 0 || !r.offset(offset) || !r.done()) return false;
  put32(12);
  put64(static_cast<uint64_t>(nanos / 1000));
  // timetz keeps the zone as seconds west of UTC.
  put32(static_cast<uint32_t>(static_cast<int32_t>(-offset)));
  return true;
}

bool CopyBinaryWriter::varbit(std::string_view bits) {
  if (bits.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max())) return false;
  std::string packed((bits.size() + 7) / 8, '\0');
  for (size_t i = 0; i < bits.size(); ++i) {
    if (bits[i] == '1')
      packed[i / 8] = static_cast<char>(static_cast<uint8_t>(packed[i / 8]) | (0x80u >> (i % 8)));
    else if (bits[i] != '0')
      return false;
  }
  put32(static_cast<uint32_t>(4 + packed.size()));
  put32(static_cast<uint32_t>(bits.size()));
  buffer_.append(packed);
  return true;
}

void CopyBinaryWriter::beginArray(uint32_t element_oid, int32_t count, bool has_null) {
  if (array_length_at_ != std::string::npos)
    throw std::logic_error("CopyBinaryWriter: nested arrays are not supported");
  array_length_at_ = buffer_.size();
  put32(0);                   // the field's length, patched by endArray()
  put32(count == 0 ? 0 : 1);  // dimensions
  put32(has_null ? 1 : 0);
  put32(element_oid);
  if (count > 0) {
    put32(static_cast<uint32_t>(count));
    put32(1);  // lower bound
  }
}

void CopyBinaryWriter::endArray() {
  const size_t length = buffer_.size() - array_length_at_ - 4;
  patch32(array_length_at_, static_cast<uint32_t>(length));
  array_length_at_ = std::string::npos;
}

void CopyBinaryWriter::finish() {
  put16(0xFFFF);
}

}  // namespace ksink::postgres
