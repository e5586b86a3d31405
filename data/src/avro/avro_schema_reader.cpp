// toConnectSchema (avro_data.h): an Avro schema as the Connect schema Confluent's AvroData makes of
// it.
#include <fmt/format.h>
#include <simdjson.h>

#include <cstring>
#include <set>

#include "avro/avro_data.h"
#include "avro/avro_fail.h"
#include "avro/confluent_names.h"

namespace ksink::avro {
namespace {

using T = Schema::Type;
using A = AvroNode::Type;
namespace dom = simdjson::dom;

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
      if (branch->type == A::kNull) {
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

}  // namespace

std::shared_ptr<const Schema> toConnectSchema(const AvroNode& node,
                                              std::optional<int32_t> version) {
  SchemaMapper mapper;
  return mapper.map(node, false, version);
}

}  // namespace ksink::avro
