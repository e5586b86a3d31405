// What the built-in transforms share: bases that build the keys each one declares once, reaching a
// record's key or value, struct editing with schemas, and a cache of derived schemas.
//
// Derived schemas are cached per source schema object: the converters hand out one schema object
// per distinct schema, and the record mapper caches column layouts by schema pointer, so a
// transform must give records of the same input schema the same output schema object.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ksink/config_def.h"
#include "ksink/config_exception.h"
#include "ksink/connect_record.h"
#include "ksink/conversion_error.h"
#include "ksink/schema.h"
#include "ksink/transformation.h"
#include "ksink/transformation_registry.h"
#include "ksink/value.h"

namespace ksink::detail {

// The key (`key` true) or the value of `record`.
inline SchemaAndValue& operand(ConnectRecord& record, bool key) {
  return key ? record.key : record.value;
}
inline const SchemaAndValue& operand(const ConnectRecord& record, bool key) {
  return key ? record.key : record.value;
}

// A struct (schema of type struct, object value) or a schemaless object (no schema, object value).
inline bool isStruct(const SchemaAndValue& sv) {
  return sv.value.kind() == Value::Kind::kObject &&
         (!sv.schema || sv.schema->type == Schema::Type::kStruct);
}

// A copy of `schema` (name, version, doc, optional, parameters) with other fields.
inline std::shared_ptr<Schema> withFields(const Schema& schema, std::vector<Schema::Field> fields) {
  auto out = std::make_shared<Schema>(schema);
  out->fields = std::move(fields);
  return out;
}

// A struct schema named `name` with `fields`.
inline std::shared_ptr<Schema> structSchema(std::string name, std::vector<Schema::Field> fields,
                                            bool optional = false) {
  auto out = std::make_shared<Schema>();
  out->type = Schema::Type::kStruct;
  out->name = std::move(name);
  out->optional = optional;
  out->fields = std::move(fields);
  return out;
}

// Derived schemas by source schema object (kept alive so its address is not reused), bounded.
class SchemaCache {
 public:
  template <typename Make>
  std::shared_ptr<const Schema> get(const std::shared_ptr<const Schema>& source, Make&& make) {
    if (auto it = map_.find(source.get()); it != map_.end()) return it->second.second;
    std::shared_ptr<const Schema> derived = make(*source);
    if (map_.size() >= kLimit) map_.clear();
    map_.emplace(source.get(), std::make_pair(source, derived));
    return derived;
  }

 private:
  static constexpr size_t kLimit = 1024;
  std::unordered_map<const Schema*,
                     std::pair<std::shared_ptr<const Schema>, std::shared_ptr<const Schema>>>
      map_;
};

// --- Definitions -------------------------------------------------------------------------------

// `Interface` (Transformation or Predicate) answering configDef() with the keys `T::definition()`
// declares, built once for every instance of T: a built-in states its keys and nothing else.
template <typename T, typename Interface>
class DefinedBy : public Interface {
 public:
  const ConfigDef& configDef() const final {
    static const ConfigDef def = T::definition();
    return def;
  }
};

template <typename T>
using BuiltinTransform = DefinedBy<T, Transformation>;
template <typename T>
using BuiltinPredicate = DefinedBy<T, Predicate>;

// `Interface` with no keys at all (Filter, RecordIsTombstone): nothing to declare or to read.
template <typename Interface>
class WithoutConfig : public Interface {
 public:
  const ConfigDef& configDef() const final {
    static const ConfigDef def;
    return def;
  }
  void configure(const Config&) final {}
};

// --- Key or value transforms -------------------------------------------------------------------

inline constexpr std::string_view kReplaceNullWithDefault = "replace.null.with.default";

// A transform of a record's key (`key` true) or value: one of Connect's `<Name>$Key` /
// `<Name>$Value` pairs, its keys declared by `T::definition()`. It reads
// `replace.null.with.default` when the definition has the key, and keeps the schemas it derives.
template <typename T>
class FieldTransform : public BuiltinTransform<T> {
 public:
  // Public, so that a transform takes it over with `using FieldTransform::FieldTransform;`.
  explicit FieldTransform(bool key) : key_(key) {}

  void configure(const Config& config) final {
    if (this->configDef().find(kReplaceNullWithDefault))
      replace_null_ = config.getBoolean(std::string(kReplaceNullWithDefault));
    configureFields(config);
  }

 protected:
  // The transform's own keys.
  virtual void configureFields(const Config& config) = 0;

  const bool key_;
  bool replace_null_ = true;
  SchemaCache cache_;
};

// --- Registration -------------------------------------------------------------------------------

inline constexpr std::string_view kTransformsPackage = "org.apache.kafka.connect.transforms.";
inline constexpr std::string_view kPredicatesPackage =
    "org.apache.kafka.connect.transforms.predicates.";

// Registers `T` under Connect's class name and the short alias (`InsertField`).
template <typename T>
void registerTransform(TransformationRegistry& registry, std::string_view name) {
  registry.addTransformation(
      {std::string(kTransformsPackage) + std::string(name), std::string(name)},
      [] { return std::make_unique<T>(); });
}

// Registers `T(true)` as `<name>$Key` and `T(false)` as `<name>$Value`, each under Connect's class
// name and the short alias.
template <typename T>
void registerKeyValueTransform(TransformationRegistry& registry, std::string_view name) {
  for (const bool key : {true, false}) {
    const auto alias = std::string(name) + (key ? "$Key" : "$Value");
    registry.addTransformation({std::string(kTransformsPackage) + alias, alias},
                               [key] { return std::make_unique<T>(key); });
  }
}

template <typename T>
void registerPredicate(TransformationRegistry& registry, std::string_view name) {
  registry.addPredicate({std::string(kPredicatesPackage) + std::string(name), std::string(name)},
                        [] { return std::make_unique<T>(); });
}

// --- Configuration ------------------------------------------------------------------------------

// Connect 3.9's `replace.null.with.default` (KIP-1040), shared by the field transforms: included
// into their definitions.
const ConfigDef& replaceNullWithDefaultDef();

// A ConfigException for one key (without the `transforms.<alias>.` prefix the chain adds).
inline ConfigException configError(std::string key, std::string reason) {
  return ConfigException(std::vector<ConfigProblem>{{std::move(key), std::move(reason)}});
}

// Comma-separated items, trimmed, empty ones dropped, duplicates kept (Connect's LIST type: the
// position of an item matters, as in HeaderFrom's `fields`/`headers` pairs).
std::vector<std::string> splitList(std::string_view text);

// Java's String.split(String.valueOf(separator)): trailing empty parts dropped ("a:" is one part).
std::vector<std::string> javaSplit(std::string_view text, char separator);

// Java's String.replace: every `from` in `text` becomes `to`, left to right, the replacement not
// searched again (so `to` may contain `from`).
std::string replaceAll(std::string text, std::string_view from, std::string_view to);

// A validator refusing an empty value, whitespace allowed (Connect's NonEmptyString).
ConfigDef::Validator nonEmptyString();
// A validator refusing an empty list (Connect's NonEmptyListValidator).
ConfigDef::Validator nonEmptyList();

// --- Records ------------------------------------------------------------------------------------

// The schema-checked operand of a field transform: a struct with its schema, throwing
// ConversionError (Connect's DataException wording) for anything else.
const Schema& requireStruct(const SchemaAndValue& sv, std::string_view purpose);
// The same check of a schema alone, for a transform deriving its output schema.
const Schema& requireStructSchema(const Schema& schema, std::string_view purpose);
// What `value` is, in words, for error messages ("integer", "object", …).
std::string_view kindName(const Value& value);

// A schemaless object, throwing ConversionError for anything else (null included).
const Value::Object& requireMap(const Value& value, std::string_view purpose);

// The value of struct field `index` (schema `field`) of `object`: its default where the value is
// null and `replace_null_with_default` (Connect's Struct.get against getWithoutDefault).
Value fieldValue(const Value::Object& object, size_t index, const Schema::Field& field,
                 bool replace_null_with_default);

// The entries of struct `object` (schema `schema`), each field's value (fieldValue()) passed
// through `f(field, value)`: Connect's loop putting every field into the updated Struct.
template <typename F>
Value::Object structEntries(const Schema& schema, const Value::Object& object,
                            bool replace_null_with_default, F&& f) {
  Value::Object out;
  out.reserve(schema.fields.size());
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    const auto& field = schema.fields[i];
    out.emplace_back(field.name, f(field, fieldValue(object, i, field, replace_null_with_default)));
  }
  return out;
}

// Entry `name` of a schemaless object, or nullptr: the last of that name, as the Java map Connect
// reads a JSON object into keeps the last of duplicate keys.
const Value* lastEntry(const Value::Object& object, std::string_view name);

// Sets entry `name` of a schemaless object: replaces the value in place or appends.
void putEntry(Value::Object& object, std::string_view name, Value value);

// Connect's logical schemas (Date, Time, Timestamp), shared instances like Schema::of.
std::shared_ptr<const Schema> logicalSchema(Schema::Logical logical, bool optional);

// A copy of `schema` with `optional` set (`schema` itself when it already has it).
std::shared_ptr<const Schema> withOptional(const std::shared_ptr<const Schema>& schema,
                                           bool optional);

// A narrowing like Java's (byte) / (short) / (int) casts of a long value; int64 unchanged.
inline int64_t javaNarrow(int64_t v, Schema::Type type) {
  switch (type) {
    case Schema::Type::kInt8:
      return static_cast<int8_t>(v);
    case Schema::Type::kInt16:
      return static_cast<int16_t>(v);
    case Schema::Type::kInt32:
      return static_cast<int32_t>(v);
    default:
      return v;
  }
}

}  // namespace ksink::detail
