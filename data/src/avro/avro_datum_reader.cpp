// readAvroBinary (avro_data.h): one datum in Avro's binary encoding as the Connect value of the
// schema toConnectSchema made.
#include <fmt/format.h>

#include <cstring>

#include "avro/avro_data.h"
#include "avro/avro_fail.h"
#include "avro/confluent_names.h"

namespace ksink::avro {
namespace {

using T = Schema::Type;
using A = AvroNode::Type;

class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}
  bool done() const { return at_ == data_.size(); }

  int64_t varlong() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (at_ >= data_.size()) fail("the datum ends inside a number");
      const auto byte = static_cast<uint8_t>(data_[at_++]);
      v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1));
    }
    fail("a number longer than ten bytes");
  }
  int32_t varint() {
    const int64_t v = varlong();
    if (v < INT32_MIN || v > INT32_MAX) fail(fmt::format("{} does not fit an Avro int", v));
    return static_cast<int32_t>(v);
  }
  std::string_view take(int64_t n) {
    if (n < 0 || static_cast<uint64_t>(n) > data_.size() - at_)
      fail(fmt::format("a length of {} with {} bytes left", n, data_.size() - at_));
    const auto out = data_.substr(at_, static_cast<size_t>(n));
    at_ += static_cast<size_t>(n);
    return out;
  }
  template <typename F>
  F floating() {
    F v;
    const auto bytes = take(sizeof(F));
    std::memcpy(&v, bytes.data(), sizeof(F));  // little-endian, as x86 and Avro
    return v;
  }
  // An array's or map's blocks: calls `item` count times per block until the empty block.
  template <typename F>
  void blocks(F&& item) {
    for (int64_t count = varlong(); count != 0; count = varlong()) {
      if (count < 0) {
        if (count == INT64_MIN) fail("a block count of -2^63");
        count = -count;
        varlong();  // the block's size in bytes
      }
      // Every item takes at least one byte, except those of nothing (null, a record without
      // fields): a count beyond the bytes left draws on a budget of such items per datum, so a
      // few bytes cannot claim billions of them, while a writer's one block of many nulls reads.
      const auto left = static_cast<int64_t>(data_.size() - at_);
      if (count > left) {
        empty_items_budget_ -= count - left;
        if (empty_items_budget_ < 0)
          fail(fmt::format("a block of {} items with {} bytes left", count, left));
      }
      for (int64_t i = 0; i < count; ++i) item();
    }
  }

 private:
  std::string_view data_;
  size_t at_ = 0;
  int64_t empty_items_budget_ = 1 << 16;  // items of no bytes a datum may hold
};

Value read(Reader& r, const AvroNode& n, const Schema& s, int depth) {
  if (depth > 500) fail("a datum nested more than 500 levels deep");
  switch (n.type) {
    case A::kNull:
      return Value();
    case A::kBoolean: {
      const auto b = r.take(1)[0];
      if (b != 0 && b != 1) fail("a boolean that is neither 0 nor 1");
      return Value::boolean(b == 1);
    }
    case A::kInt:
      return Value::integer(r.varint());
    case A::kLong:
      return Value::integer(r.varlong());
    case A::kFloat:
      return Value::floating(r.floating<float>());
    case A::kDouble:
      return Value::floating(r.floating<double>());
    case A::kBytes:
      return Value::bytes(std::string(r.take(r.varlong())));
    case A::kFixed:
      return Value::bytes(std::string(r.take(n.size)));
    case A::kString:
      return Value::string(std::string(r.take(r.varlong())));
    case A::kEnum: {
      const int32_t index = r.varint();
      if (index < 0 || static_cast<size_t>(index) >= n.symbols.size())
        fail(fmt::format("enum {} has no symbol {}", n.name, index));
      return Value::string(n.symbols[static_cast<size_t>(index)]);
    }
    case A::kArray: {
      if (s.type == T::kMap) {  // an array of MapEntry records
        const AvroNode& entry = *n.items;
        // String keys make an object, as Connect's maps with string keys are; others [key, value]
        // pairs.
        Value::Object object;
        Value::Array pairs;
        const bool string_keys = s.key_schema->type == T::kString;
        r.blocks([&] {
          Value key = read(r, *entry.fields[0].type, *s.key_schema, depth + 1);
          Value value = read(r, *entry.fields[1].type, *s.value_schema, depth + 1);
          if (!string_keys) {
            pairs.push_back(Value::array({std::move(key), std::move(value)}));
          } else if (key.isNull()) {
            fail("a map entry with a null key");
          } else {
            object.emplace_back(key.asString(), std::move(value));
          }
        });
        return string_keys ? Value::object(std::move(object)) : Value::array(std::move(pairs));
      }
      Value::Array out;
      r.blocks([&] { out.push_back(read(r, *n.items, *s.value_schema, depth + 1)); });
      return Value::array(std::move(out));
    }
    case A::kMap: {
      Value::Object out;
      r.blocks([&] {
        std::string key(r.take(r.varlong()));
        out.emplace_back(std::move(key), read(r, *n.values, *s.value_schema, depth + 1));
      });
      return Value::object(std::move(out));
    }
    case A::kRecord: {
      Value::Object out;
      out.reserve(n.fields.size());
      for (size_t i = 0; i < n.fields.size(); ++i)
        out.emplace_back(n.fields[i].name,
                         read(r, *n.fields[i].type, *s.fields[i].schema, depth + 1));
      return Value::object(std::move(out));
    }
    case A::kUnion: {
      const int64_t index = r.varlong();
      if (index < 0 || static_cast<size_t>(index) >= n.branches.size())
        fail(fmt::format("a union of {} branches has no branch {}", n.branches.size(), index));
      const AvroNode& branch = *n.branches[static_cast<size_t>(index)];
      if (branch.type == A::kNull) return Value();
      if (plainBranch(n)) return read(r, branch, s, depth + 1);
      // Connect's Union struct: the branch's field set, the others null.
      Value::Object out;
      for (const auto& f : s.fields) out.emplace_back(f.name, Value());
      size_t field_at = 0;
      for (int64_t i = 0; i < index; ++i)
        if (n.branches[static_cast<size_t>(i)]->type != A::kNull) ++field_at;
      out[field_at].second = read(r, branch, *s.fields[field_at].schema, depth + 1);
      return Value::object(std::move(out));
    }
  }
  fail("an unknown Avro type");
}

}  // namespace

Value readAvroBinary(const AvroNode& node, const Schema& schema, std::string_view data) {
  Reader r(data);
  Value v = read(r, node, schema, 0);
  if (!r.done()) fail("bytes left over after the datum");
  return v;
}

}  // namespace ksink::avro
