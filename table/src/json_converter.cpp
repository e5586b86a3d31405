#include "json_converter.h"

#include <fmt/format.h>

#include <cstring>
#include <limits>
#include <vector>

#include "base64.h"

namespace ksink {
namespace {

namespace od = simdjson::ondemand;
namespace dom = simdjson::dom;

// Where in the document a conversion failed, built on the stack and formatted only on failure.
struct Path {
  const Path* parent = nullptr;
  std::string_view field;
  int64_t index = -1;

  std::string str() const {
    std::string out = parent ? parent->str() : std::string();
    if (index >= 0) return out + fmt::format("[{}]", index);
    if (!field.empty()) return out.empty() ? std::string(field) : out + "." + std::string(field);
    return out;
  }
};

[[noreturn]] void fail(const Path& path, std::string_view what) {
  const auto where = path.str();
  throw ConversionError(where.empty() ? fmt::format("invalid JSON data: {}", what)
                                      : fmt::format("invalid JSON data at '{}': {}", where, what));
}

void check(simdjson::error_code e, const Path& path, std::string_view what) {
  if (e) fail(path, fmt::format("{} ({})", what, simdjson::error_message(e)));
}

Value convertSchemaless(od::value v, const Path& path);

// Calls fn(key, value) for each field of `obj`, turning parse errors into ConversionError.
template <typename Fn>
void forEachField(od::object& obj, const Path& path, Fn&& fn) {
  for (auto item : obj) {
    od::field field;
    check(std::move(item).get(field), path, "malformed object");
    std::string_view key;
    check(field.unescaped_key().get(key), path, "malformed field name");
    fn(key, field.value());
  }
}
Value convertWithSchema(od::value v, const Schema& schema, const Path& path);

Value convertNumber(od::value& v, const Path& path) {
  od::number_type type{};
  check(v.get_number_type().get(type), path, "malformed number");
  if (type == od::number_type::signed_integer) {
    int64_t i = 0;
    check(v.get_int64().get(i), path, "malformed integer");
    return Value::integer(i);
  }
  // Integers beyond int64 and fractions become doubles (Connect's schemaless JSON does the same
  // with BigInteger → it keeps them, but SQL columns cannot hold them either).
  double d = 0;
  check(v.get_double().get(d), path, "malformed number");
  return Value::floating(d);
}

Value convertSchemaless(od::value v, const Path& path) {
  od::json_type type{};
  check(v.type().get(type), path, "malformed value");
  switch (type) {
    case od::json_type::object: {
      od::object obj;
      check(v.get_object().get(obj), path, "malformed object");
      Value::Object out;
      out.reserve(8);  // one allocation for typical records instead of regrowing
      forEachField(obj, path, [&](std::string_view key, od::value value) {
        out.emplace_back(std::string(key), convertSchemaless(value, Path{&path, key}));
      });
      return Value::object(std::move(out));
    }
    case od::json_type::array: {
      od::array arr;
      check(v.get_array().get(arr), path, "malformed array");
      Value::Array out;
      int64_t i = 0;
      for (auto item : arr) {
        od::value element;
        check(item.get(element), path, "malformed array");
        out.push_back(convertSchemaless(element, Path{&path, {}, i++}));
      }
      return Value::array(std::move(out));
    }
    case od::json_type::number:
      return convertNumber(v, path);
    case od::json_type::string: {
      std::string_view s;
      check(v.get_string().get(s), path, "malformed string");
      return Value::string(std::string(s));
    }
    case od::json_type::boolean: {
      bool b = false;
      check(v.get_bool().get(b), path, "malformed boolean");
      return Value::boolean(b);
    }
    case od::json_type::null: {
      bool is_null = false;
      check(v.is_null().get(is_null), path, "malformed null");
      if (!is_null) fail(path, "malformed null");
      return Value();
    }
  }
  fail(path, "unknown JSON value");
}

Value nullFor(const Schema& schema, const Path& path) {
  if (schema.default_value) return *schema.default_value;
  if (schema.optional) return Value();
  fail(path, fmt::format("null (or missing) value for required {}", schema));
}

std::string_view jsonTypeName(od::value& v) {
  od::json_type type{};
  if (v.type().get(type)) return "malformed JSON";
  switch (type) {
    case od::json_type::object:
      return "an object";
    case od::json_type::array:
      return "an array";
    case od::json_type::number:
      return "a number";
    case od::json_type::string:
      return "a string";
    case od::json_type::boolean:
      return "a boolean";
    case od::json_type::null:
      return "null";
  }
  return "?";
}

[[noreturn]] void mismatch(od::value& v, const Schema& schema, const Path& path) {
  fail(path, fmt::format("expected {}, got {}", schema, jsonTypeName(v)));
}

Value convertInteger(od::value& v, const Schema& schema, const Path& path) {
  int64_t i = 0;
  if (v.get_int64().get(i)) mismatch(v, schema, path);
  auto in = [&](int64_t lo, int64_t hi) {
    if (i < lo || i > hi) fail(path, fmt::format("{} out of range for {}", i, schema));
  };
  switch (schema.type) {
    case Schema::Type::kInt8:
      in(-128, 127);
      break;
    case Schema::Type::kInt16:
      in(-32768, 32767);
      break;
    case Schema::Type::kInt32:
      in(std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
      break;
    default:
      break;
  }
  return Value::integer(i);
}

Value convertBytes(od::value& v, const Schema& schema, const Path& path) {
  od::json_type type{};
  check(v.type().get(type), path, "malformed value");
  if (schema.logical() == Schema::Logical::kDecimal && type == od::json_type::number) {
    // decimal.format=NUMERIC writes the number itself.
    std::string_view token = v.raw_json_token();
    while (!token.empty() && (token.back() == ' ' || token.back() == '\n' || token.back() == '\t' ||
                              token.back() == '\r'))
      token.remove_suffix(1);
    auto unscaled = Value::decimalFromString(token, schema.decimalScale());
    if (!unscaled)
      fail(path, fmt::format("{} is not a decimal with scale {}", token, schema.decimalScale()));
    return Value::bytes(std::move(*unscaled));
  }
  std::string_view text;
  if (type != od::json_type::string || v.get_string().get(text)) mismatch(v, schema, path);
  auto bytes = base64Decode(text);
  if (!bytes) fail(path, fmt::format("expected base64 for {}", schema));
  if (schema.logical() == Schema::Logical::kDecimal && bytes->empty())
    fail(path, "empty decimal bytes");
  return Value::bytes(std::move(*bytes));
}

Value convertStruct(od::value& v, const Schema& schema, const Path& path) {
  od::object obj;
  if (v.get_object().get(obj)) mismatch(v, schema, path);
  const size_t n = schema.fields.size();
  Value::Object out(n);
  std::vector<uint8_t> seen(n, 0);
  size_t expected_next = 0;  // payloads usually list fields in schema order
  forEachField(obj, path, [&](std::string_view key, od::value value) {
    size_t index = n;
    if (expected_next < n && schema.fields[expected_next].name == key) {
      index = expected_next;
    } else {
      for (size_t i = 0; i < n; ++i)
        if (schema.fields[i].name == key) {
          index = i;
          break;
        }
    }
    if (index == n) return;  // not in the schema: ignored, as Connect does
    expected_next = index + 1;
    out[index].second = convertWithSchema(value, *schema.fields[index].schema,
                                          Path{&path, schema.fields[index].name});
    seen[index] = 1;
  });
  for (size_t i = 0; i < n; ++i) {
    out[i].first = schema.fields[i].name;
    if (!seen[i]) out[i].second = nullFor(*schema.fields[i].schema, Path{&path, out[i].first});
  }
  return Value::object(std::move(out));
}

Value convertWithSchema(od::value v, const Schema& schema, const Path& path) {
  bool is_null = false;
  if (!v.is_null().get(is_null) && is_null) return nullFor(schema, path);
  switch (schema.type) {
    case Schema::Type::kInt8:
    case Schema::Type::kInt16:
    case Schema::Type::kInt32:
    case Schema::Type::kInt64:
      return convertInteger(v, schema, path);
    case Schema::Type::kFloat32:
    case Schema::Type::kFloat64: {
      double d = 0;
      if (v.get_double().get(d)) mismatch(v, schema, path);
      return Value::floating(d);
    }
    case Schema::Type::kBoolean: {
      bool b = false;
      if (v.get_bool().get(b)) mismatch(v, schema, path);
      return Value::boolean(b);
    }
    case Schema::Type::kString: {
      std::string_view s;
      if (v.get_string().get(s)) mismatch(v, schema, path);
      return Value::string(std::string(s));
    }
    case Schema::Type::kBytes:
      return convertBytes(v, schema, path);
    case Schema::Type::kArray: {
      od::array arr;
      if (v.get_array().get(arr)) mismatch(v, schema, path);
      if (!schema.value_schema) fail(path, "array schema without \"items\"");
      Value::Array out;
      int64_t i = 0;
      for (auto item : arr) {
        od::value element;
        check(item.get(element), path, "malformed array");
        out.push_back(convertWithSchema(element, *schema.value_schema, Path{&path, {}, i++}));
      }
      return Value::array(std::move(out));
    }
    case Schema::Type::kMap: {
      if (!schema.key_schema || !schema.value_schema)
        fail(path, "map schema without \"keys\" or \"values\"");
      if (schema.key_schema->type == Schema::Type::kString) {
        od::object obj;
        if (v.get_object().get(obj)) mismatch(v, schema, path);
        Value::Object out;
        forEachField(obj, path, [&](std::string_view key, od::value value) {
          out.emplace_back(std::string(key),
                           convertWithSchema(value, *schema.value_schema, Path{&path, key}));
        });
        return Value::object(std::move(out));
      }
      // Non-string keys: Connect writes an array of [key, value] pairs.
      od::array arr;
      if (v.get_array().get(arr)) mismatch(v, schema, path);
      Value::Array out;
      int64_t i = 0;
      for (auto item : arr) {
        const Path entry_path{&path, {}, i++};
        od::array pair;
        if (item.get_array().get(pair)) fail(entry_path, "map entry must be a [key, value] array");
        Value::Array kv;
        for (auto part : pair) {
          od::value element;
          check(part.get(element), entry_path, "malformed map entry");
          if (kv.size() == 2) fail(entry_path, "map entry must be a [key, value] array");
          kv.push_back(convertWithSchema(
              element, kv.empty() ? *schema.key_schema : *schema.value_schema, entry_path));
        }
        if (kv.size() != 2) fail(entry_path, "map entry must be a [key, value] array");
        out.push_back(Value::array(std::move(kv)));
      }
      return Value::array(std::move(out));
    }
    case Schema::Type::kStruct:
      return convertStruct(v, schema, path);
  }
  fail(path, "unknown schema type");
}

// Wraps `data` in [ ] so that scalar documents parse as values too; the caller checks that the
// wrapper holds exactly one element and that nothing trails it.
void wrap(std::string& buffer, std::string_view data) {
  buffer.clear();
  buffer.reserve(data.size() + 2 + simdjson::SIMDJSON_PADDING);
  buffer += '[';
  buffer.append(data);
  buffer += ']';
}

// simdjson's On Demand parser trusts documents to nest less than its max_depth (it asserts, or
// worse, past it), so deeper input is refused before parsing.
constexpr size_t kMaxDepth = 512;

void checkDepth(std::string_view data) {
  // Fast path (memchr is vectorised): fewer brackets than the limit cannot nest past it.
  size_t brackets = 0;
  for (const char open : {'[', '{'}) {
    const char* p = data.data();
    const char* const end = data.data() + data.size();
    while (brackets <= kMaxDepth &&
           (p = static_cast<const char*>(std::memchr(p, open, static_cast<size_t>(end - p))))) {
      ++brackets;
      ++p;
    }
  }
  if (brackets <= kMaxDepth) return;
  size_t depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < data.size(); ++i) {
    const char c = data[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxDepth) fail(Path{}, fmt::format("nested deeper than {} levels", kMaxDepth));
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

template <typename Convert>
auto parseWrapped(od::parser& parser, std::string& buffer, std::string_view data,
                  Convert&& convert) {
  checkDepth(data);
  wrap(buffer, data);
  const size_t len = buffer.size();
  buffer.resize(len + simdjson::SIMDJSON_PADDING, '\0');
  const Path root;
  od::document doc;
  check(parser.iterate(buffer.data(), len, buffer.size()).get(doc), root, "not valid JSON");
  od::array outer;
  check(doc.get_array().get(outer), root, "not valid JSON");
  std::optional<decltype(convert(std::declval<od::value>()))> result;
  for (auto item : outer) {
    od::value v;
    check(item.get(v), root, "not valid JSON");
    if (result) fail(root, "more than one JSON value");
    result.emplace(convert(v));
  }
  if (!result) fail(root, "no JSON value");
  const char* location = nullptr;
  if (!doc.current_location().get(location)) fail(root, "unexpected content after the JSON value");
  return std::move(*result);
}

std::shared_ptr<Schema> schemaFromDom(dom::element e, const Path& path);

void setDefault(Schema& schema, dom::element def, const Path& path) {
  if (def.is_null()) return;
  const std::string text = simdjson::minify(def);
  od::parser parser;
  std::string buffer;
  schema.default_value = std::make_shared<const Value>(parseWrapped(
      parser, buffer, text, [&](od::value v) { return convertWithSchema(v, schema, path); }));
}

std::shared_ptr<Schema> schemaFromDom(dom::element e, const Path& path) {
  dom::object o;
  if (e.get(o)) fail(path, "a schema must be a JSON object");
  std::string_view type_name;
  if (o["type"].get(type_name)) fail(path, "schema without a \"type\"");
  const auto type = Schema::typeFromName(type_name);
  if (!type) fail(path, fmt::format("unknown schema type \"{}\"", type_name));
  auto schema = std::make_shared<Schema>();
  schema->type = *type;
  bool optional = false;
  if (!o["optional"].get(optional)) schema->optional = optional;
  std::string_view text;
  if (!o["name"].get(text)) schema->name = std::string(text);
  if (!o["doc"].get(text)) schema->doc = std::string(text);
  int64_t version = 0;
  if (!o["version"].get(version)) schema->version = static_cast<int32_t>(version);
  dom::object params;
  if (!o["parameters"].get(params)) {
    for (auto [key, value] : params) {
      std::string_view s;
      schema->parameters[std::string(key)] =
          value.get(s) ? simdjson::minify(value) : std::string(s);
    }
  }
  if (*type == Schema::Type::kStruct) {
    dom::array fields;
    if (o["fields"].get(fields)) fail(path, "struct schema without \"fields\"");
    for (dom::element f : fields) {
      std::string_view field_name;
      if (f["field"].get(field_name)) fail(path, "struct field without a \"field\" name");
      const Path child{&path, field_name};
      schema->fields.push_back({std::string(field_name), schemaFromDom(f, child)});
    }
  }
  dom::element sub;
  if (*type == Schema::Type::kArray) {
    if (o["items"].get(sub)) fail(path, "array schema without \"items\"");
    schema->value_schema = schemaFromDom(sub, path);
  }
  if (*type == Schema::Type::kMap) {
    if (o["keys"].get(sub)) fail(path, "map schema without \"keys\"");
    schema->key_schema = schemaFromDom(sub, path);
    if (o["values"].get(sub)) fail(path, "map schema without \"values\"");
    schema->value_schema = schemaFromDom(sub, path);
  }
  if (!o["default"].get(sub)) setDefault(*schema, sub, path);
  return schema;
}

}  // namespace

JsonConverter::JsonConverter(bool schemas_enable) : schemas_enable_(schemas_enable) {}

std::shared_ptr<const Schema> JsonConverter::parseSchema(std::string_view json) {
  dom::parser parser;
  dom::element root;
  const Path where{nullptr, "schema"};
  check(parser.parse(simdjson::padded_string(json)).get(root), where, "schema is not valid JSON");
  return schemaFromDom(root, where);
}

std::shared_ptr<const Schema> JsonConverter::cachedSchema(std::string_view raw) {
  if (auto it = schemas_.find(raw); it != schemas_.end()) return it->second;
  auto schema = parseSchema(raw);
  // Bounded: a topic whose every record carries a new schema must not grow memory forever.
  if (schemas_.size() >= 1024) schemas_.clear();
  schemas_.emplace(std::string(raw), schema);
  return schema;
}

SchemaAndValue JsonConverter::toConnectData(std::string_view topic,
                                            std::optional<std::string_view> data) {
  (void)topic;
  if (!data) return {nullptr, Value()};
  if (!schemas_enable_) {
    return {nullptr, parseWrapped(parser_, buffer_, *data,
                                  [](od::value v) { return convertSchemaless(v, Path{}); })};
  }
  return parseWrapped(parser_, buffer_, *data, [this](od::value v) {
    const Path root;
    od::object envelope;
    if (v.get_object().get(envelope))
      fail(root,
           "with schemas.enable=true the data must be an object {\"schema\": …, \"payload\": …} "
           "(set schemas.enable=false for plain JSON)");
    od::value schema_value;
    if (envelope.find_field_unordered("schema").get(schema_value))
      fail(root,
           "no \"schema\" field: with schemas.enable=true the data must be an object "
           "{\"schema\": …, \"payload\": …} (set schemas.enable=false for plain JSON)");
    std::shared_ptr<const Schema> schema;
    bool schema_null = false;
    if (schema_value.is_null().get(schema_null) || !schema_null) {
      od::object schema_object;
      if (schema_value.get_object().get(schema_object)) fail(root, "\"schema\" is not an object");
      std::string_view raw;
      check(schema_object.raw_json().get(raw), root, "malformed schema");
      schema = cachedSchema(raw);
    }
    od::value payload;
    if (envelope.find_field_unordered("payload").get(payload))
      fail(root, "no \"payload\" field in the schema envelope");
    const Path payload_path{nullptr, "payload"};
    Value value = schema ? convertWithSchema(payload, *schema, payload_path)
                         : convertSchemaless(payload, payload_path);
    return SchemaAndValue{std::move(schema), std::move(value)};
  });
}

}  // namespace ksink
