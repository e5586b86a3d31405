#include "avro/avro_data.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <cstring>
#include <set>

#include "avro/confluent_names.h"
#include "ksink/conversion_error.h"

namespace ksink::avro {
namespace {

using T = Schema::Type;
using A = AvroNode::Type;
namespace dom = simdjson::dom;

[[noreturn]] void fail(const std::string& what) {
  throw ConversionError("Avro: " + what);
}

bool isNull(const AvroNode* n) {
  return n->type == A::kNull;
}

// The branch a union stands for when it is a plain (or optional) value — a union of one branch, or
// of null and one other — and nullptr when it is a general union (Connect's Union struct).
const AvroNode* plainBranch(const AvroNode& u) {
  const auto& b = u.branches;
  if (b.size() == 1) return b[0];
  if (b.size() == 2 && isNull(b[0]) != isNull(b[1])) return isNull(b[0]) ? b[1] : b[0];
  return nullptr;
}

// A primitive default (JSON) as the Value of `schema`; nullopt for what is not converted.
std::optional<Value> defaultValue(const std::string& json, const Schema& schema) {
  dom::parser parser;
  dom::element e;
  if (parser.parse(json).get(e)) return std::nullopt;
  if (e.is_null()) return Value();
  switch (schema.type) {
    case T::kBoolean:
      if (e.is_bool()) return Value::boolean(bool(e));
      break;
    case T::kInt8:
    case T::kInt16:
    case T::kInt32:
    case T::kInt64:
      if (e.is_int64()) return Value::integer(int64_t(e));
      break;
    case T::kFloat32:
    case T::kFloat64:
      if (e.is_number()) return Value::floating(double(e));
      break;
    case T::kString:
      if (e.is_string()) return Value::string(std::string(std::string_view(e)));
      break;
    default:
      break;
  }
  return std::nullopt;
}

class SchemaMapper {
 public:
  std::shared_ptr<Schema> map(const AvroNode& n, bool optional, std::optional<int32_t> version) {
    if (!visiting_.insert(&n).second)
      fail(fmt::format("{} refers to itself: recursive schemas are not supported", n.name));
    auto s = base(n, optional);
    annotate(n, *s, version);
    visiting_.erase(&n);
    return s;
  }

 private:
  std::shared_ptr<Schema> make(T type, bool optional) {
    auto s = std::make_shared<Schema>();
    s->type = type;
    s->optional = optional;
    return s;
  }

  std::shared_ptr<Schema> base(const AvroNode& n, bool optional) {
    switch (n.type) {
      case A::kNull:
        fail("a standalone null schema has no Connect type");
      case A::kBoolean:
        return make(T::kBoolean, optional);
      case A::kInt: {
        if (n.logical_type == "date" || n.logical_type == "time-millis") {
          auto s = make(T::kInt32, optional);
          s->name = n.logical_type == "date" ? Schema::kDateName : Schema::kTimeName;
          s->version = 1;
          return s;
        }
        const auto connect_type = n.stringProp("connect.type");
        if (n.logical_type.empty() && connect_type) {
          if (*connect_type == "int8") return make(T::kInt8, optional);
          if (*connect_type == "int16") return make(T::kInt16, optional);
          fail(fmt::format("connect.type {} on an int", *connect_type));
        }
        return make(T::kInt32, optional);
      }
      case A::kLong: {
        auto s = make(T::kInt64, optional);
        if (n.logical_type == "timestamp-millis") {
          s->name = Schema::kTimestampName;
          s->version = 1;
        }
        return s;
      }
      case A::kFloat:
        return make(T::kFloat32, optional);
      case A::kDouble:
        return make(T::kFloat64, optional);
      case A::kString:
        return make(T::kString, optional);
      case A::kBytes:
      case A::kFixed: {
        auto s = make(T::kBytes, optional);
        if (n.logical_type == "decimal") {
          s->name = Schema::kDecimalName;
          s->version = 1;
          s->parameters[std::string(Schema::kScaleParameter)] =
              std::to_string(n.intProp("scale").value_or(0));
          if (const auto precision = n.intProp("precision"); precision && *precision != 64)
            s->parameters[std::string(kPrecisionParameter)] = std::to_string(*precision);
        } else if (n.type == A::kFixed) {
          s->name = n.name;
          s->parameters[std::string(kFixedSizeParameter)] = std::to_string(n.size);
        }
        return s;
      }
      case A::kEnum: {
        auto s = make(T::kString, optional);
        s->name = n.name;
        s->parameters[std::string(kEnumParameter)] = n.name;
        for (const auto& symbol : n.symbols)
          s->parameters[fmt::format("{}.{}", kEnumParameter, symbol)] = symbol;
        return s;
      }
      case A::kArray: {
        const AvroNode& items = *n.items;
        if (items.type == A::kRecord &&
            (items.name == kMapEntryName ||
             items.stringProp("connect.internal.type") == std::optional<std::string>("MapEntry"))) {
          if (items.fields.size() != 2 || items.fields[0].name != "key" ||
              items.fields[1].name != "value")
            fail(items.name + " must have exactly the fields key and value");
          auto s = make(T::kMap, optional);
          s->key_schema = field(*items.fields[0].type);
          s->value_schema = field(*items.fields[1].type);
          return s;
        }
        auto s = make(T::kArray, optional);
        s->value_schema = field(items);
        return s;
      }
      case A::kMap: {
        auto s = make(T::kMap, optional);
        s->key_schema = Schema::of(T::kString);
        s->value_schema = field(*n.values);
        return s;
      }
      case A::kRecord: {
        auto s = make(T::kStruct, optional);
        s->name = n.name;
        for (const auto& f : n.fields) {
          auto fs = field(*f.type);
          if (f.default_json) {
            // A null default is no default in Connect (SchemaBuilder.defaultValue(null)).
            if (auto v = defaultValue(*f.default_json, *fs); v && !v->isNull()) {
              auto copy = std::make_shared<Schema>(*fs);
              copy->default_value = std::make_shared<const Value>(std::move(*v));
              fs = copy;
            }
          }
          s->fields.push_back({f.name, std::move(fs)});
        }
        return s;
      }
      case A::kUnion:
        return unionSchema(n, optional);
    }
    fail("an unknown Avro type");
  }

  // A union's or a field's schema: unions of null and X are optional X.
  std::shared_ptr<const Schema> field(const AvroNode& n) { return map(n, false, std::nullopt); }

  std::shared_ptr<Schema> unionSchema(const AvroNode& n, bool optional) {
    const auto& b = n.branches;
    if (const AvroNode* plain = plainBranch(n))
      return map(*plain, optional || b.size() == 2, std::nullopt);
    auto s = make(T::kStruct, optional);
    s->name = kUnionName;
    std::set<std::string> names;
    for (const AvroNode* branch : b) {
      if (isNull(branch)) {
        s->optional = true;
        continue;
      }
      std::string name(branchName(*branch));
      if (!names.insert(name).second)
        fail(fmt::format("Multiple union schemas map to the Connect union field name {}", name));
      s->fields.push_back({name, map(*branch, true, std::nullopt)});
    }
    return s;
  }

  void annotate(const AvroNode& n, Schema& s, std::optional<int32_t> version) {
    if (const auto doc = n.stringProp("connect.doc")) s.doc = *doc;
    if (const auto v = n.intProp("connect.version"))
      s.version = static_cast<int32_t>(*v);
    else if (version && !s.version)
      s.version = version;
    if (const auto it = n.props.find("connect.parameters"); it != n.props.end()) {
      dom::parser parser;
      dom::object params;
      if (parser.parse(it->second).get_object().get(params))
        fail("connect.parameters must be a JSON object");
      for (auto [key, value] : params) {
        std::string_view text;
        if (value.get_string().get(text))
          fail(fmt::format("connect.parameters {} is not a string", key));
        s.parameters[std::string(key)] = std::string(text);
      }
    }
    for (const auto& [key, value] : n.props)
      if (key.starts_with("avro")) {
        dom::parser parser;
        std::string_view text;
        s.parameters[key] = parser.parse(value).get_string().get(text) ? value : std::string(text);
      }
    if (!s.default_value)
      if (const auto it = n.props.find("connect.default"); it != n.props.end())
        if (auto v = defaultValue(it->second, s))
          s.default_value = std::make_shared<const Value>(std::move(*v));
    if (const auto name = n.stringProp("connect.name")) s.name = *name;
    if (std::string_view(s.name).starts_with(kDefaultName)) s.name.clear();
  }

  std::set<const AvroNode*> visiting_;
};

// --- binary ----------------------------------------------------------------------------------

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

std::shared_ptr<const Schema> toConnectSchema(const AvroNode& node,
                                              std::optional<int32_t> version) {
  SchemaMapper mapper;
  return mapper.map(node, false, version);
}

Value readAvroBinary(const AvroNode& node, const Schema& schema, std::string_view data) {
  Reader r(data);
  Value v = read(r, node, schema, 0);
  if (!r.done()) fail("bytes left over after the datum");
  return v;
}

}  // namespace ksink::avro
