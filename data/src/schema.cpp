#include "ksink/schema.h"

#include <array>
#include <charconv>

#include "ksink/value.h"

namespace ksink {
namespace {

constexpr std::array<std::string_view, 12> kTypeNames = {"int8",  "int16",  "int32",   "int64",
                                                         "float", "double", "boolean", "string",
                                                         "bytes", "array",  "map",     "struct"};

}  // namespace

Schema::Logical Schema::logical() const {
  if (name.empty()) return Logical::kNone;
  if (name == kDecimalName) return Logical::kDecimal;
  if (name == kDateName) return Logical::kDate;
  if (name == kTimeName) return Logical::kTime;
  if (name == kTimestampName) return Logical::kTimestamp;
  if (name.starts_with("io.debezium.")) {
    const bool integer = type == Type::kInt32 || type == Type::kInt64;
    struct Known {
      std::string_view name;
      Logical logical;
    };
    static constexpr Known kIntegers[] = {
        {kDebeziumDateName, Logical::kDate},
        {kDebeziumTimeName, Logical::kTime},
        {kMicroTimeName, Logical::kMicroTime},
        {kNanoTimeName, Logical::kNanoTime},
        {kDebeziumTimestampName, Logical::kLocalTimestamp},
        {kMicroTimestampName, Logical::kMicroTimestamp},
        {kNanoTimestampName, Logical::kNanoTimestamp},
    };
    static constexpr Known kStrings[] = {
        {kZonedTimestampName, Logical::kZonedTimestamp},
        {kZonedTimeName, Logical::kZonedTime},
        {kUuidName, Logical::kUuid},
        {kJsonName, Logical::kJson},
        {kXmlName, Logical::kXml},
        {kEnumName, Logical::kEnum},
        {kEnumSetName, Logical::kEnumSet},
    };
    for (const auto& k : kIntegers)
      if (name == k.name) return integer ? k.logical : Logical::kNone;
    for (const auto& k : kStrings)
      if (name == k.name) return type == Type::kString ? k.logical : Logical::kNone;
    if (name == kBitsName) return type == Type::kBytes ? Logical::kBits : Logical::kNone;
    if (name == kVariableScaleDecimalName)
      return type == Type::kStruct ? Logical::kVariableScaleDecimal : Logical::kNone;
  }
  return Logical::kNone;
}

Schema::Logical Schema::connectLogical() const {
  if (name == kDecimalName) return Logical::kDecimal;
  if (name == kDateName) return Logical::kDate;
  if (name == kTimeName) return Logical::kTime;
  if (name == kTimestampName) return Logical::kTimestamp;
  return Logical::kNone;
}

std::optional<int64_t> Schema::intParameter(std::string_view parameter) const {
  auto it = parameters.find(std::string(parameter));
  if (it == parameters.end()) return std::nullopt;
  int64_t v = 0;
  const auto& s = it->second;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

int64_t Schema::unitsPerSecond(Logical logical) {
  switch (logical) {
    case Logical::kTime:
    case Logical::kTimestamp:
    case Logical::kLocalTimestamp:
      return 1000;
    case Logical::kMicroTime:
    case Logical::kMicroTimestamp:
      return 1000000;
    case Logical::kNanoTime:
    case Logical::kNanoTimestamp:
      return 1000000000;
    default:
      return 0;
  }
}

bool Schema::isTimeOfDay(Logical logical) {
  return logical == Logical::kTime || logical == Logical::kMicroTime ||
         logical == Logical::kNanoTime;
}

bool Schema::isEpochTimestamp(Logical logical) {
  return logical == Logical::kTimestamp || logical == Logical::kLocalTimestamp ||
         logical == Logical::kMicroTimestamp || logical == Logical::kNanoTimestamp;
}

int32_t Schema::decimalScale() const {
  auto it = parameters.find(std::string(kScaleParameter));
  if (it == parameters.end()) return 0;
  int32_t scale = 0;
  const auto& s = it->second;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), scale);
  return ec == std::errc() && ptr == s.data() + s.size() ? scale : 0;
}

const Schema::Field* Schema::field(std::string_view field_name) const {
  for (const auto& f : fields)
    if (f.name == field_name) return &f;
  return nullptr;
}

std::string_view Schema::typeName(Type type) {
  return kTypeNames[static_cast<size_t>(type)];
}

std::optional<Schema::Type> Schema::typeFromName(std::string_view type_name) {
  for (size_t i = 0; i < kTypeNames.size(); ++i)
    if (kTypeNames[i] == type_name) return static_cast<Type>(i);
  // Connect accepts the Java-ish aliases in schemas written by other tools.
  if (type_name == "float32") return Type::kFloat32;
  if (type_name == "float64") return Type::kFloat64;
  return std::nullopt;
}

Schema::Type Schema::inferredType(const Value& value) {
  // By Value::Kind, the order of Value's alternatives: null, boolean, int, double, string, bytes,
  // array, object.
  static constexpr Type kByKind[] = {Type::kString, Type::kBoolean, Type::kInt64, Type::kFloat64,
                                     Type::kString, Type::kBytes,   Type::kArray, Type::kMap};
  static_assert(std::size(kByKind) == static_cast<size_t>(Value::Kind::kObject) + 1);
  return kByKind[static_cast<size_t>(value.kind())];
}

std::shared_ptr<const Schema> Schema::of(Type type, bool optional) {
  // One immutable instance per (type, optional), so pointer-keyed caches hit across records.
  static const auto table = [] {
    std::array<std::array<std::shared_ptr<const Schema>, 2>, kTypeNames.size()> t;
    for (size_t i = 0; i < kTypeNames.size(); ++i)
      for (int o = 0; o < 2; ++o) {
        auto s = std::make_shared<Schema>();
        s->type = static_cast<Type>(i);
        s->optional = o == 1;
        t[i][static_cast<size_t>(o)] = std::move(s);
      }
    return t;
  }();
  return table[static_cast<size_t>(type)][optional ? 1 : 0];
}

std::string format_as(const Schema& schema) {
  std::string out = schema.optional ? "optional " : "";
  if (schema.logical() == Schema::Logical::kDecimal)
    return out + fmt::format("{}(scale={})", schema.name, schema.decimalScale());
  if (schema.logical() != Schema::Logical::kNone) return out + schema.name;
  out += Schema::typeName(schema.type);
  if (!schema.name.empty()) out += " " + schema.name;
  return out;
}

}  // namespace ksink
