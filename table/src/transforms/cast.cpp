// Cast$Key / Cast$Value: casts fields, or the whole key or value, to another primitive type with
// Java's conversions, like Connect's Cast.
#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <variant>

#include "base64.h"
#include "builtin_transforms.h"
#include "ksink/detail/config_parse.h"
#include "transform_support.h"

namespace ksink::detail {
namespace {

using Type = Schema::Type;

constexpr std::string_view kPurpose = "cast types";
constexpr std::string_view kSupportedInput =
    "[INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING, BYTES]";
constexpr std::string_view kSupportedOutput =
    "[INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING]";

std::string upper(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string typeUpper(Type type) {
  return upper(Schema::typeName(type) == "float"    ? "float32"
               : Schema::typeName(type) == "double" ? "float64"
                                                    : Schema::typeName(type));
}

struct Spec {
  std::map<std::string, Type> fields;
  std::optional<Type> whole;
};

// Connect's parseFieldTypes: `field:type,…` or one `type` for the whole value.
std::variant<Spec, std::string> parseSpec(const std::vector<std::string>& mappings) {
  if (mappings.empty()) return std::string("Must specify at least one field to cast.");
  Spec spec;
  const auto typeOf = [](std::string_view text) -> std::variant<Type, std::string> {
    const auto name = upper(trim(text));
    std::optional<Type> type;
    for (const Type t :
         {Type::kInt8, Type::kInt16, Type::kInt32, Type::kInt64, Type::kFloat32, Type::kFloat64,
          Type::kBoolean, Type::kString, Type::kBytes, Type::kArray, Type::kMap, Type::kStruct})
      if (typeUpper(t) == name) type = t;
    if (!type) return fmt::format("Invalid type found in casting spec: {}", trim(text));
    if (*type == Type::kBytes || !Schema::of(*type)->isPrimitive())
      return fmt::format(
          "Cast transformation does not support casting to {}; supported types "
          "are {}",
          name, kSupportedOutput);
    return *type;
  };
  for (const auto& mapping : mappings) {
    const auto parts = javaSplit(mapping, ':');
    if (parts.size() > 2 || parts.empty())
      return fmt::format("Invalid cast mapping: {} (expected field:type or type)", mapping);
    auto type = typeOf(parts.back());
    if (auto* error = std::get_if<std::string>(&type)) return *error;
    if (parts.size() == 1)
      spec.whole = std::get<Type>(type);
    else
      spec.fields.insert_or_assign(std::string(trim(parts[0])), std::get<Type>(type));
  }
  if (spec.whole && mappings.size() > 1)
    return std::string(
        "Cast transformations that specify a type to cast the entire value to may only specify "
        "a single cast in their spec");
  return spec;
}

// --- Java's conversions -------------------------------------------------------------------------

// Java's (int) / (long) of a double: saturating, NaN to 0.
template <typename Int>
Int javaDoubleTo(double d) {
  if (std::isnan(d)) return 0;
  if (d >= static_cast<double>(std::numeric_limits<Int>::max()))
    return std::numeric_limits<Int>::max();
  if (d <= static_cast<double>(std::numeric_limits<Int>::min()))
    return std::numeric_limits<Int>::min();
  return static_cast<Int>(d);
}

// A source value as Java's Number: integral or floating.
struct Number {
  bool floating = false;
  int64_t i = 0;
  double d = 0;
  bool float32 = false;  // a Float, for toString
};

int64_t toIntegral(const Number& n, Type target) {
  // Java's byteValue()/shortValue() narrow the int value; longValue() saturates a double.
  const int64_t wide = !n.floating              ? n.i
                       : target == Type::kInt64 ? javaDoubleTo<int64_t>(n.d)
                                                : javaDoubleTo<int32_t>(n.d);
  return javaNarrow(wide, target);
}

double toFloating(const Number& n, Type target) {
  const double d = n.floating ? n.d : static_cast<double>(n.i);
  return target == Type::kFloat32 ? static_cast<double>(static_cast<float>(d)) : d;
}

[[noreturn]] void outOfRange(std::string_view text) {
  throw ConversionError(fmt::format("Value ({}) was out of range for requested data type", text));
}

// Byte.parseByte / Short.parseShort / Integer.parseInt / Long.parseLong.
int64_t parseJavaInteger(const std::string& text, Type target) {
  std::string_view s = text;
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty() || s.front() == '+') outOfRange(text);
  int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) outOfRange(text);
  const auto fits = [&](auto lo, auto hi) { return v >= lo && v <= hi; };
  if ((target == Type::kInt8 && !fits(INT8_MIN, INT8_MAX)) ||
      (target == Type::kInt16 && !fits(INT16_MIN, INT16_MAX)) ||
      (target == Type::kInt32 && !fits(INT32_MIN, INT32_MAX)))
    outOfRange(text);
  return v;
}

// Float.parseFloat / Double.parseDouble: surrounding whitespace, a sign, NaN, Infinity, decimal
// digits with an exponent and an f/d suffix.
double parseJavaFloating(const std::string& text, Type target) {
  std::string_view s = text;
  while (!s.empty() && static_cast<unsigned char>(s.front()) <= ' ') s.remove_prefix(1);
  while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ') s.remove_suffix(1);
  std::string body(s);
  bool negative = false;
  std::string_view unsigned_part = body;
  if (!unsigned_part.empty() && (unsigned_part.front() == '-' || unsigned_part.front() == '+')) {
    negative = unsigned_part.front() == '-';
    unsigned_part.remove_prefix(1);
  }
  if (unsigned_part == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (unsigned_part == "Infinity")
    return negative ? -std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::infinity();
  if (!body.empty() && std::string_view("fFdD").find(body.back()) != std::string_view::npos)
    body.pop_back();
  if (body.empty() || body.find_first_not_of("0123456789.eE+-") != std::string::npos)
    outOfRange(text);
  char* end = nullptr;
  errno = 0;
  const double d = target == Type::kFloat32 ? static_cast<double>(std::strtof(body.c_str(), &end))
                                            : std::strtod(body.c_str(), &end);
  if (end != body.c_str() + body.size()) outOfRange(text);
  return d;
}

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

// The text Connect's castToString gives a Date/Time/Timestamp (Values.dateFormatFor, UTC).
std::string dateText(int64_t millis) {
  static const auto time = *DateFormat::compile("HH:mm:ss.SSS'Z'", nullptr);
  static const auto date = *DateFormat::compile("yyyy-MM-dd", nullptr);
  static const auto timestamp = *DateFormat::compile("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'", nullptr);
  if (millis < 86400000) return time.format(millis);
  if (millis % 86400000 == 0) return date.format(millis);
  return timestamp.format(millis);
}

Type inferredType(const Value& value) {
  switch (value.kind()) {
    case Value::Kind::kBoolean:
      return Type::kBoolean;
    case Value::Kind::kInt:
      return Type::kInt64;
    case Value::Kind::kDouble:
      return Type::kFloat64;
    case Value::Kind::kString:
      return Type::kString;
    case Value::Kind::kBytes:
      return Type::kBytes;
    case Value::Kind::kArray:
      return Type::kArray;
    default:
      return Type::kMap;
  }
}

// Connect's castValueToType; `schema` is nullptr for schemaless values.
Value castValue(const Schema* schema, const Value& value, Type target) {
  if (value.isNull()) return Value();
  const Type from = schema ? schema->type : inferredType(value);
  if (from == Type::kArray || from == Type::kMap || from == Type::kStruct)
    throw ConversionError(
        fmt::format("Cast transformation does not support casting from {}; supported types are {}",
                    typeUpper(from), kSupportedInput));
  const auto logical = schema ? schema->connectLogical() : Schema::Logical::kNone;
  const auto unexpected = [&]() -> Value {
    throw ConversionError(fmt::format("Unexpected type in Cast transformation: {} to {}",
                                      schema ? format_as(*schema) : Schema::typeName(from),
                                      typeUpper(target)));
  };
  const auto expectKind = [&](Value::Kind kind) {
    if (value.kind() != kind)
      throw ConversionError(fmt::format("Cast transformation: a {} value is not of its schema {}",
                                        Schema::typeName(from),
                                        schema ? format_as(*schema) : "type"));
  };

  if (target == Type::kString) {
    switch (logical) {
      case Schema::Logical::kDecimal:
        expectKind(Value::Kind::kBytes);
        return Value::string(Value::decimalToString(value.asBytes(), schema->decimalScale()));
      case Schema::Logical::kDate:
        expectKind(Value::Kind::kInt);
        return Value::string(dateText(value.asInt() * 86400000));
      case Schema::Logical::kTime:
      case Schema::Logical::kTimestamp:
        expectKind(Value::Kind::kInt);
        return Value::string(dateText(value.asInt()));
      default:
        break;
    }
    switch (value.kind()) {
      case Value::Kind::kBytes:
        return Value::string(base64Encode(value.asBytes()));
      case Value::Kind::kBoolean:
        return Value::string(value.asBoolean() ? "true" : "false");
      case Value::Kind::kInt:
        return Value::string(std::to_string(value.asInt()));
      case Value::Kind::kDouble:
        return Value::string(javaFloatToString(value.asDouble(), from == Type::kFloat32));
      case Value::Kind::kString:
        return value;
      default:
        return unexpected();
    }
  }

  // The source as Java sees it: a Number, a Boolean or a String.
  std::optional<Number> number;
  if (logical == Schema::Logical::kDecimal) {
    expectKind(Value::Kind::kBytes);
    const auto text = Value::decimalToString(value.asBytes(), schema->decimalScale());
    Number n;
    // BigDecimal's longValue() drops the fraction; doubleValue() rounds.
    const auto dot = text.find('.');
    const auto integral = text.substr(0, dot);
    // Its low 64 bits, as BigInteger.longValue() keeps them.
    uint64_t wide = 0;
    for (char c : integral)
      if (c >= '0' && c <= '9') wide = wide * 10 + static_cast<uint64_t>(c - '0');
    if (!integral.empty() && integral[0] == '-') wide = ~wide + 1;
    if (target == Type::kFloat32 || target == Type::kFloat64) {
      n.floating = true;
      n.d = std::strtod(text.c_str(), nullptr);
    } else {
      n.i = static_cast<int64_t>(wide);
    }
    number = n;
  } else if (value.kind() == Value::Kind::kInt) {
    number = Number{false, value.asInt(), 0, false};
  } else if (value.kind() == Value::Kind::kDouble) {
    number = Number{true, 0, value.asDouble(), from == Type::kFloat32};
  }

  switch (target) {
    case Type::kInt8:
    case Type::kInt16:
    case Type::kInt32:
    case Type::kInt64:
      if (number) return Value::integer(toIntegral(*number, target));
      if (value.kind() == Value::Kind::kBoolean) return Value::integer(value.asBoolean() ? 1 : 0);
      if (value.kind() == Value::Kind::kString)
        return Value::integer(parseJavaInteger(value.asString(), target));
      return unexpected();
    case Type::kFloat32:
    case Type::kFloat64:
      if (number) return Value::floating(toFloating(*number, target));
      if (value.kind() == Value::Kind::kBoolean)
        return Value::floating(value.asBoolean() ? 1.0 : 0.0);
      if (value.kind() == Value::Kind::kString)
        return Value::floating(parseJavaFloating(value.asString(), target));
      return unexpected();
    case Type::kBoolean:
      if (number) return Value::boolean(toIntegral(*number, Type::kInt64) != 0);
      if (value.kind() == Value::Kind::kBoolean) return value;
      if (value.kind() == Value::Kind::kString)
        return Value::boolean(equalsIgnoreCase(value.asString(), "true"));
      return unexpected();
    default:
      return unexpected();
  }
}

class Cast : public Transformation {
 public:
  explicit Cast(bool key) : key_(key) {}

  const ConfigDef& configDef() const override {
    static const ConfigDef def = [] {
      ConfigDef d;
      d.define("spec", ConfigDef::Type::kList, std::nullopt, ConfigDef::Importance::kHigh,
               "List of fields and the type to cast them to of the form field1:type,field2:type "
               "to cast fields of Maps or Structs. A single type to cast the entire value. Valid "
               "types are int8, int16, int32, int64, float32, float64, boolean, and string. Note "
               "that binary fields can only be cast to string.",
               [](std::string_view value) -> std::optional<std::string> {
                 auto spec = parseSpec(splitList(value));
                 if (auto* error = std::get_if<std::string>(&spec)) return *error;
                 return std::nullopt;
               });
      defineReplaceNullWithDefault(d);
      return d;
    }();
    return def;
  }

  void configure(const Config& config) override {
    auto spec = parseSpec(splitList(config.getString("spec")));
    if (auto* error = std::get_if<std::string>(&spec)) throw configError("spec", *error);
    spec_ = std::get<Spec>(std::move(spec));
    replace_null_ = config.getBoolean(std::string(kReplaceNullWithDefault));
  }

  std::optional<ConnectRecord> apply(ConnectRecord record) override {
    auto& operand = detail::operand(record, key_);
    if (operand.value.isNull()) return record;
    if (!operand.schema) {
      if (spec_.whole) {
        operand.value = castValue(nullptr, operand.value, *spec_.whole);
        return record;
      }
      Value::Object out = requireMap(operand.value, kPurpose);
      for (const auto& [field, type] : spec_.fields) {
        const Value* v = nullptr;
        for (const auto& [n, entry] : out)
          if (n == field) v = &entry;
        putEntry(out, field, v ? castValue(nullptr, *v, type) : Value());
      }
      operand.value = Value::object(std::move(out));
      return record;
    }
    auto updated = cache_.get(operand.schema, [&](const Schema& s) { return castSchema(s); });
    if (spec_.whole) {
      operand = {std::move(updated), castValue(operand.schema.get(), operand.value, *spec_.whole)};
      return record;
    }
    const auto& schema = requireStruct(operand, kPurpose);
    const auto& in = operand.value.asObject();
    Value::Object out;
    out.reserve(schema.fields.size());
    for (size_t i = 0; i < schema.fields.size(); ++i) {
      const auto& f = schema.fields[i];
      auto v = fieldValue(in, i, f, replace_null_);
      auto it = spec_.fields.find(f.name);
      out.emplace_back(f.name, it == spec_.fields.end() ? std::move(v)
                                                        : castValue(f.schema.get(), v, it->second));
    }
    operand = {std::move(updated), Value::object(std::move(out))};
    return record;
  }

 private:
  // `source` cast to `type`: optional as it was, its default cast too.
  static std::shared_ptr<const Schema> castTo(const Schema& source, Type type, bool keep_basics) {
    auto out = std::make_shared<Schema>();
    out->type = type;
    out->optional = source.optional;
    // Connect copies name, version, doc and parameters onto a whole-value cast; a logical type's
    // name is not copied since the value no longer has that representation.
    if (keep_basics) {
      if (source.connectLogical() == Schema::Logical::kNone) {
        out->name = source.name;
        out->parameters = source.parameters;
      }
      out->version = source.version;
      out->doc = source.doc;
    }
    if (source.default_value)
      out->default_value =
          std::make_shared<const Value>(castValue(&source, *source.default_value, type));
    if (out->name.empty() && !out->version && out->doc.empty() && out->parameters.empty() &&
        !out->default_value)
      return Schema::of(type, out->optional);
    return out;
  }

  std::shared_ptr<const Schema> castSchema(const Schema& schema) const {
    if (spec_.whole) return castTo(schema, *spec_.whole, true);
    if (schema.type != Type::kStruct)
      throw ConversionError(fmt::format("Only Struct objects supported for [{}], found: {}",
                                        kPurpose, format_as(schema)));
    std::vector<Schema::Field> fields;
    for (const auto& f : schema.fields) {
      auto it = spec_.fields.find(f.name);
      fields.push_back(
          {f.name, it == spec_.fields.end() ? f.schema : castTo(*f.schema, it->second, false)});
    }
    return withFields(schema, std::move(fields));
  }

  bool key_;
  Spec spec_;
  bool replace_null_ = true;
  SchemaCache cache_;
};

}  // namespace

void registerCast(TransformationRegistry& registry) {
  registerKeyValueTransform<Cast>(registry, "Cast");
}

}  // namespace ksink::detail
