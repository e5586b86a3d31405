#include "json_values.h"

#include <cstring>
#include <limits>
#include <vector>

#include "base64.h"
#include "ksink/detail/config_parse.h"

namespace ksink::json {

[[noreturn]] void fail(const Path& path, std::string_view what) {
  const auto where = path.str();
  throw ConversionError(where.empty() ? fmt::format("invalid JSON data: {}", what)
                                      : fmt::format("invalid JSON data at '{}': {}", where, what));
}

void check(simdjson::error_code e, const Path& path, std::string_view what) {
  if (e) fail(path, fmt::format("{} ({})", what, simdjson::error_message(e)));
}

namespace {

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

Value convertNumber(od::value& v, const Path& path) {
  od::number_type type{};
  check(v.get_number_type().get(type), path, "malformed number");
  if (type == od::number_type::signed_integer) {
    int64_t i = 0;
    check(v.get_int64().get(i), path, "malformed integer");
    return Value::integer(i);
  }
  // An integer beyond int64 has no column to go to exactly (a schemaless number becomes bigint
  // or double precision): rounding it to a double would change the data without a word, so the
  // record is bad. Connect keeps it as a BigInteger, which the JDBC sinks cannot write either.
  const std::string_view token = v.raw_json_token();
  if (token.find_first_of(".eE") == std::string_view::npos)
    fail(path, fmt::format("the integer {} is beyond a 64-bit integer; send it as a string, or "
                           "with a schema (a Decimal)",
                           ksink::detail::trim(token)));
  double d = 0;
  check(v.get_double().get(d), path, "malformed number");
  return Value::floating(d);
}

}  // namespace

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

namespace {

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
  if (schema.logical() == Schema::Logical::kDecimal)
    if (auto beyond = Value::decimalBeyondBounds(bytes->size(), std::nullopt)) fail(path, *beyond);
  return Value::bytes(std::move(*bytes));
}

// Debezium's VariableScaleDecimal carries its scale in each value: bounded as Decimal's is.
void checkDecimalBounds(const Value& decimal, const Path& path) {
  const Value* scale = decimal.find("scale");
  const Value* unscaled = decimal.find("value");
  const bool has_scale = scale && scale->kind() == Value::Kind::kInt;
  const bool has_bytes = unscaled && unscaled->kind() == Value::Kind::kBytes;
  if (auto beyond = Value::decimalBeyondBounds(
          has_bytes ? std::optional<size_t>(unscaled->asBytes().size()) : std::nullopt,
          has_scale ? std::optional<int64_t>(scale->asInt()) : std::nullopt))
    fail(path, *beyond);
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
  Value result = Value::object(std::move(out));
  if (schema.logical() == Schema::Logical::kVariableScaleDecimal) checkDecimalBounds(result, path);
  return result;
}

}  // namespace

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

void wrap(std::string& buffer, std::string_view data) {
  buffer.clear();
  buffer.reserve(data.size() + 2 + simdjson::SIMDJSON_PADDING);
  buffer += '[';
  buffer.append(data);
  buffer += ']';
}

namespace {
constexpr size_t kMaxDepth = 512;
}  // namespace

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

}  // namespace ksink::json
