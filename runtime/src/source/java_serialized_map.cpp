#include "java_serialized_map.h"

#include <fmt/format.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace ksink {
namespace {

// The Java Object Serialization Stream Protocol's constants.
constexpr uint16_t kMagic = 0xACED;
constexpr uint16_t kVersion = 5;
constexpr uint8_t kNull = 0x70;
constexpr uint8_t kReference = 0x71;
constexpr uint8_t kClassDesc = 0x72;
constexpr uint8_t kObject = 0x73;
constexpr uint8_t kArray = 0x75;
constexpr uint8_t kBlockData = 0x77;
constexpr uint8_t kEndBlockData = 0x78;
constexpr uint32_t kBaseHandle = 0x7E0000;
constexpr uint64_t kHashMapUid = 0x0507DAC1C31660D1ULL;
constexpr uint64_t kByteArrayUid = 0xACF317F8060854E0ULL;
constexpr uint8_t kSerializable = 0x02;
constexpr uint8_t kWriteMethod = 0x01;

class Writer {
 public:
  void u8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void u16(uint16_t v) {
    u8(static_cast<uint8_t>(v >> 8));
    u8(static_cast<uint8_t>(v));
  }
  void u32(uint32_t v) {
    u16(static_cast<uint16_t>(v >> 16));
    u16(static_cast<uint16_t>(v));
  }
  void u64(uint64_t v) {
    u32(static_cast<uint32_t>(v >> 32));
    u32(static_cast<uint32_t>(v));
  }
  void utf(std::string_view s) {
    u16(static_cast<uint16_t>(s.size()));
    out_.append(s);
  }
  void bytes(std::string_view s) { out_.append(s); }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  uint8_t u8() {
    need(1);
    return static_cast<uint8_t>(in_[pos_++]);
  }
  uint8_t peek() {
    need(1);
    return static_cast<uint8_t>(in_[pos_]);
  }
  uint16_t u16() {
    const uint16_t hi = u8();
    return static_cast<uint16_t>((hi << 8) | u8());
  }
  uint32_t u32() {
    const uint32_t hi = u16();
    return (hi << 16) | u16();
  }
  uint64_t u64() {
    const uint64_t hi = u32();
    return (hi << 32) | u32();
  }
  std::string utf() { return std::string(take(u16())); }
  std::string_view take(size_t n) {
    need(n);
    auto out = in_.substr(pos_, n);
    pos_ += n;
    return out;
  }
  bool atEnd() const { return pos_ == in_.size(); }
  size_t position() const { return pos_; }

 private:
  void need(size_t n) {
    if (in_.size() - pos_ < n)
      throw std::runtime_error(fmt::format("truncated at byte {}", in_.size()));
  }
  std::string_view in_;
  size_t pos_ = 0;
};

[[noreturn]] void bad(const Reader& r, const std::string& what) {
  throw std::runtime_error(fmt::format("{} at byte {}", what, r.position()));
}

// What a handle names: a class descriptor (by class name) or a byte[] (its bytes).
struct Handle {
  bool is_class;
  std::string text;
};

class MapReader {
 public:
  explicit MapReader(std::string_view stream) : r_(stream) {}

  JavaByteArrayMap read() {
    if (r_.u16() != kMagic || r_.u16() != kVersion) bad(r_, "not a Java serialization stream");
    if (r_.u8() != kObject) bad(r_, "not an object");
    const auto cls = classDesc();
    if (cls != "java.util.HashMap") bad(r_, fmt::format("a {}, not a java.util.HashMap", cls));
    handles_.push_back({false, ""});  // the map itself
    // The fields, in the descriptor's order (primitives only for HashMap).
    for (const char type : field_types_) {
      if (type == 'F' || type == 'I')
        r_.u32();
      else
        bad(r_, fmt::format("an unexpected HashMap field of type {}", type));
    }
    // HashMap.writeObject: the table size and the entry count, in a block.
    if (r_.u8() != kBlockData || r_.u8() != 8) bad(r_, "no HashMap size block");
    r_.u32();
    const uint32_t size = r_.u32();
    JavaByteArrayMap out;
    for (uint32_t i = 0; i < size; ++i) {
      auto key = byteArray();
      auto value = byteArray();
      if (!key) bad(r_, "a null key");  // Connect never writes one; ksink cannot hold one
      out.insert_or_assign(std::move(*key), std::move(value));
    }
    if (r_.u8() != kEndBlockData) bad(r_, "no end of the HashMap's block");
    if (!r_.atEnd()) bad(r_, "bytes after the HashMap");
    return out;
  }

 private:
  // A class descriptor (new or a reference); returns the class name.
  std::string classDesc() {
    const uint8_t tag = r_.u8();
    if (tag == kReference) {
      const auto& h = handle(r_.u32());
      if (!h.is_class) bad(r_, "a reference to an object where a class was expected");
      return h.text;
    }
    if (tag != kClassDesc) bad(r_, fmt::format("tag 0x{:02x} where a class was expected", tag));
    const auto name = r_.utf();
    r_.u64();  // serialVersionUID
    handles_.push_back({true, name});
    r_.u8();  // flags
    const uint16_t fields = r_.u16();
    std::string types;
    for (uint16_t i = 0; i < fields; ++i) {
      const char type = static_cast<char>(r_.u8());
      r_.utf();
      if (type == 'L' || type == '[') bad(r_, "an object field");
      types.push_back(type);
    }
    if (r_.u8() != kEndBlockData) bad(r_, "class annotations");
    if (r_.u8() != kNull) bad(r_, "a superclass");
    if (name == "java.util.HashMap") field_types_ = types;
    return name;
  }

  std::optional<std::string> byteArray() {
    const uint8_t tag = r_.u8();
    if (tag == kNull) return std::nullopt;
    if (tag == kReference) {
      const auto& h = handle(r_.u32());
      if (h.is_class) bad(r_, "a reference to a class where a byte[] was expected");
      return h.text;
    }
    if (tag != kArray) bad(r_, fmt::format("tag 0x{:02x} where a byte[] was expected", tag));
    if (classDesc() != "[B") bad(r_, "an array that is not a byte[]");
    const uint32_t length = r_.u32();
    std::string bytes(r_.take(length));
    handles_.push_back({false, bytes});
    return bytes;
  }

  const Handle& handle(uint32_t h) {
    if (h < kBaseHandle || h - kBaseHandle >= handles_.size()) bad(r_, "a dangling reference");
    return handles_[h - kBaseHandle];
  }

  Reader r_;
  std::vector<Handle> handles_;
  std::string field_types_;
};

}  // namespace

std::string writeJavaSerializedMap(const JavaByteArrayMap& entries) {
  // The table HashMap would have grown to for these entries (load factor 0.75).
  uint32_t capacity = 16;
  while (entries.size() > capacity / 4 * 3) capacity *= 2;
  const uint32_t threshold = entries.empty() ? 0 : capacity / 4 * 3;
  Writer w;
  w.u16(kMagic);
  w.u16(kVersion);
  w.u8(kObject);
  w.u8(kClassDesc);  // handle 0: HashMap's descriptor
  w.utf("java.util.HashMap");
  w.u64(kHashMapUid);
  w.u8(kSerializable | kWriteMethod);
  w.u16(2);
  w.u8('F');
  w.utf("loadFactor");
  w.u8('I');
  w.utf("threshold");
  w.u8(kEndBlockData);
  w.u8(kNull);                            // no serializable superclass; handle 1: the map
  w.u32(std::bit_cast<uint32_t>(0.75f));  // loadFactor
  w.u32(threshold);
  w.u8(kBlockData);
  w.u8(8);
  w.u32(capacity);
  w.u32(static_cast<uint32_t>(entries.size()));
  bool described = false;  // byte[]'s descriptor, handle 2, written with the first array
  auto array = [&](const std::optional<std::string>& bytes) {
    if (!bytes) {
      w.u8(kNull);
      return;
    }
    w.u8(kArray);
    if (!described) {
      w.u8(kClassDesc);
      w.utf("[B");
      w.u64(kByteArrayUid);
      w.u8(kSerializable);
      w.u16(0);
      w.u8(kEndBlockData);
      w.u8(kNull);
      described = true;
    } else {
      w.u8(kReference);
      w.u32(kBaseHandle + 2);
    }
    w.u32(static_cast<uint32_t>(bytes->size()));
    w.bytes(*bytes);
  };
  for (const auto& [key, value] : entries) {
    array(key);
    array(value);
  }
  w.u8(kEndBlockData);
  return w.take();
}

JavaByteArrayMap readJavaSerializedMap(std::string_view stream) {
  return MapReader(stream).read();
}

}  // namespace ksink
