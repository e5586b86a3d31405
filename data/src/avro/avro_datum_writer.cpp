// writeAvroBinary (avro_writer.h): a Connect value in Avro's binary encoding of a schema.
#include <fmt/format.h>

#include <cstring>

#include "avro/avro_fail.h"
#include "avro/avro_writer.h"
#include "avro/confluent_names.h"

namespace ksink::avro {
namespace {

using T = Schema::Type;
using A = AvroNode::Type;

class BinaryWriter {
 public:
  explicit BinaryWriter(std::string& out) : out_(out) {}

  void write(const AvroNode& n, const Schema& s, const Value& v) {
    if (++depth_ > 500) fail("a value nested more than 500 levels deep");
    datum(n, s, v);
    --depth_;
  }

 private:
  void varlong(int64_t v) {
    auto z = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
    while (z & ~uint64_t{0x7f}) {
      out_ += static_cast<char>((z & 0x7f) | 0x80);
      z >>= 7;
    }
    out_ += static_cast<char>(z);
  }
  void bytes(std::string_view b) {
    varlong(static_cast<int64_t>(b.size()));
    out_ += b;
  }
  [[noreturn]] void mismatch(const AvroNode& n, const Value& v) {
    static constexpr std::string_view kKinds[] = {"null",   "boolean", "integer", "number",
                                                  "string", "bytes",   "array",   "struct or map"};
    fail(fmt::format("{} value where the Avro schema has {}{}",
                     kKinds[static_cast<size_t>(v.kind())], AvroNode::typeName(n.type),
                     field_.empty() ? "" : fmt::format(" (field {})", field_)));
  }
  void expect(const AvroNode& n, const Value& v, Value::Kind kind) {
    if (v.kind() != kind) mismatch(n, v);
  }

  void datum(const AvroNode& n, const Schema& s, const Value& v) {
    switch (n.type) {
      case A::kNull:
        return expect(n, v, Value::Kind::kNull);
      case A::kBoolean:
        expect(n, v, Value::Kind::kBoolean);
        out_ += v.asBoolean() ? '\1' : '\0';
        return;
      case A::kInt:
        expect(n, v, Value::Kind::kInt);
        if (v.asInt() < INT32_MIN || v.asInt() > INT32_MAX)
          fail(fmt::format("{} does not fit an Avro int", v.asInt()));
        return varlong(v.asInt());
      case A::kLong:
        expect(n, v, Value::Kind::kInt);
        return varlong(v.asInt());
      case A::kFloat:
      case A::kDouble: {
        double d = 0;
        if (v.kind() == Value::Kind::kDouble)
          d = v.asDouble();
        else if (v.kind() == Value::Kind::kInt)
          d = static_cast<double>(v.asInt());
        else
          mismatch(n, v);
        char buffer[8];
        if (n.type == A::kFloat) {
          const auto f = static_cast<float>(d);
          std::memcpy(buffer, &f, 4);  // little-endian, as x86 and Avro
          out_.append(buffer, 4);
        } else {
          std::memcpy(buffer, &d, 8);
          out_.append(buffer, 8);
        }
        return;
      }
      case A::kString:
        expect(n, v, Value::Kind::kString);
        return bytes(v.asString());
      case A::kBytes:
        expect(n, v, Value::Kind::kBytes);
        return bytes(v.asBytes());
      case A::kFixed: {
        expect(n, v, Value::Kind::kBytes);
        std::string_view b = v.asBytes();
        const auto size = static_cast<size_t>(n.size);
        if (n.logical_type == "decimal" && b.size() < size) {  // sign-extend the unscaled bytes
          const char fill = !b.empty() && (b[0] & 0x80) ? '\xff' : '\0';
          out_.append(size - b.size(), fill);
          out_ += b;
          return;
        }
        if (b.size() != size)
          fail(fmt::format("{} bytes for the fixed {} of {}", b.size(), n.name, n.size));
        out_ += b;
        return;
      }
      case A::kEnum: {
        expect(n, v, Value::Kind::kString);
        for (size_t i = 0; i < n.symbols.size(); ++i)
          if (n.symbols[i] == v.asString()) return varlong(static_cast<int64_t>(i));
        fail(fmt::format("'{}' is not a symbol of the enum {}", v.asString(), n.name));
      }
      case A::kArray:
        return array(n, s, v);
      case A::kMap: {
        expect(n, v, Value::Kind::kObject);
        if (s.type != T::kMap || !s.value_schema) mismatch(n, v);
        const auto& entries = v.asObject();
        if (!entries.empty()) {
          varlong(static_cast<int64_t>(entries.size()));
          for (const auto& [key, item] : entries) {
            bytes(key);
            write(*n.values, *s.value_schema, item);
          }
        }
        return varlong(0);
      }
      case A::kRecord:
        return record(n, s, v);
      case A::kUnion:
        return unionBranch(n, s, v);
    }
  }

  void array(const AvroNode& n, const Schema& s, const Value& v) {
    if (s.type == T::kMap) {  // an array of MapEntry records
      if (!s.key_schema || !s.value_schema) mismatch(n, v);
      const AvroNode& entry = *n.items;
      if (entry.type != A::kRecord || entry.fields.size() != 2) mismatch(n, v);
      const auto pair = [&](const Value& key, const Value& value) {
        write(*entry.fields[0].type, *s.key_schema, key);
        write(*entry.fields[1].type, *s.value_schema, value);
      };
      if (v.kind() == Value::Kind::kObject) {
        const auto& entries = v.asObject();
        if (!entries.empty()) varlong(static_cast<int64_t>(entries.size()));
        for (const auto& [key, value] : entries) pair(Value::string(key), value);
      } else {
        expect(n, v, Value::Kind::kArray);
        const auto& pairs = v.asArray();
        if (!pairs.empty()) varlong(static_cast<int64_t>(pairs.size()));
        for (const auto& p : pairs) {
          if (p.kind() != Value::Kind::kArray || p.asArray().size() != 2)
            fail("a map entry that is not a [key, value] pair");
          pair(p.asArray()[0], p.asArray()[1]);
        }
      }
      return varlong(0);
    }
    expect(n, v, Value::Kind::kArray);
    if (s.type != T::kArray || !s.value_schema) mismatch(n, v);
    const auto& items = v.asArray();
    if (!items.empty()) {
      varlong(static_cast<int64_t>(items.size()));
      for (const auto& item : items) write(*n.items, *s.value_schema, item);
    }
    varlong(0);
  }

  void record(const AvroNode& n, const Schema& s, const Value& v) {
    expect(n, v, Value::Kind::kObject);
    if (s.type != T::kStruct) mismatch(n, v);
    for (const auto& f : n.fields) {
      const Schema::Field* connect = s.field(f.name);
      const Value* item = connect ? v.find(f.name) : nullptr;
      const auto outer = field_;
      field_ = f.name;
      if (item) {
        write(*f.type, *connect->schema, *item);
      } else if (f.default_json == std::optional<std::string>("null") &&
                 (f.type->type == A::kNull ||
                  (f.type->type == A::kUnion && f.type->branches[0]->type == A::kNull))) {
        if (f.type->type == A::kUnion) varlong(0);
      } else {
        fail(fmt::format("the record has no field {} and the Avro schema gives it no null default",
                         f.name));
      }
      field_ = outer;
    }
  }

  void unionBranch(const AvroNode& n, const Schema& s, const Value& v) {
    const auto& b = n.branches;
    if (v.isNull()) {
      for (size_t i = 0; i < b.size(); ++i)
        if (b[i]->type == A::kNull) return varlong(static_cast<int64_t>(i));
      mismatch(n, v);
    }
    if (s.type == T::kStruct && s.name == kUnionName) {
      // Connect's Union struct: the one field that is set picks the branch of its name.
      expect(n, v, Value::Kind::kObject);
      for (const auto& [name, item] : v.asObject()) {
        if (item.isNull()) continue;
        const Schema::Field* f = s.field(name);
        if (!f) fail(fmt::format("the union has no branch {}", name));
        for (size_t i = 0; i < b.size(); ++i) {
          if (branchName(*b[i]) == name) {
            varlong(static_cast<int64_t>(i));
            return write(*b[i], *f->schema, item);
          }
        }
        fail(fmt::format("the Avro union has no branch {}", name));
      }
      fail("a union value with no branch set");
    }
    // An optional value: the branch that is not null (the first that takes the value).
    for (size_t i = 0; i < b.size(); ++i)
      if (b[i]->type != A::kNull) {
        varlong(static_cast<int64_t>(i));
        return write(*b[i], s, v);
      }
    mismatch(n, v);
  }

  std::string& out_;
  int depth_ = 0;
  std::string field_;
};

}  // namespace

void writeAvroBinary(const AvroNode& node, const Schema& schema, const Value& value,
                     std::string& out) {
  BinaryWriter(out).write(node, schema, value);
}

}  // namespace ksink::avro
