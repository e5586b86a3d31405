#include "transform_support.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <ctime>

#include "ksink/config_exception.h"
#include "ksink/detail/config_parse.h"

namespace ksink::detail {

const ConfigDef& replaceNullWithDefaultDef() {
  static const ConfigDef def = ConfigDef().define(
      std::string(kReplaceNullWithDefault), ConfigDef::Type::kBoolean, "true",
      ConfigDef::Importance::kMedium,
      "Whether a null field that has a default value takes the default (true) or stays "
      "null (false).");
  return def;
}

std::vector<std::string> splitList(std::string_view text) {
  std::vector<std::string> items;
  while (true) {
    const auto comma = text.find(',');
    const auto item = trim(text.substr(0, comma));
    if (!item.empty()) items.emplace_back(item);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return items;
}

std::vector<std::string> javaSplit(std::string_view text, char separator) {
  if (text.empty()) return {std::string()};
  std::vector<std::string> parts;
  while (true) {
    const auto at = text.find(separator);
    parts.emplace_back(text.substr(0, at));
    if (at == std::string_view::npos) break;
    text.remove_prefix(at + 1);
  }
  while (!parts.empty() && parts.back().empty()) parts.pop_back();
  return parts;
}

std::string replaceAll(std::string text, std::string_view from, std::string_view to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

ConfigDef::Validator nonEmptyString() {
  return [](std::string_view value) -> std::optional<std::string> {
    if (value.empty()) return "String must be non-empty";
    return std::nullopt;
  };
}

ConfigDef::Validator nonEmptyList() {
  return [](std::string_view value) -> std::optional<std::string> {
    if (splitList(value).empty()) return "Empty list";
    return std::nullopt;
  };
}

std::string_view kindName(const Value& value) {
  switch (value.kind()) {
    case Value::Kind::kNull:
      return "null";
    case Value::Kind::kBoolean:
      return "boolean";
    case Value::Kind::kInt:
      return "integer";
    case Value::Kind::kDouble:
      return "floating-point number";
    case Value::Kind::kString:
      return "string";
    case Value::Kind::kBytes:
      return "bytes";
    case Value::Kind::kArray:
      return "array";
    case Value::Kind::kObject:
      return "object";
  }
  return "value";
}

namespace {

ConversionError onlyStructs(std::string_view purpose, std::string_view found) {
  return ConversionError(
      fmt::format("Only Struct objects supported for [{}], found: {}", purpose, found));
}

}  // namespace

const Schema& requireStruct(const SchemaAndValue& sv, std::string_view purpose) {
  if (!sv.schema || sv.value.kind() != Value::Kind::kObject)
    throw onlyStructs(purpose, sv.schema ? format_as(*sv.schema) : std::string(kindName(sv.value)));
  return requireStructSchema(*sv.schema, purpose);
}

const Schema& requireStructSchema(const Schema& schema, std::string_view purpose) {
  if (schema.type != Schema::Type::kStruct) throw onlyStructs(purpose, format_as(schema));
  return schema;
}

const Value::Object& requireMap(const Value& value, std::string_view purpose) {
  if (value.kind() != Value::Kind::kObject)
    throw ConversionError(
        fmt::format("Only Map objects supported in absence of schema for [{}], found: {}", purpose,
                    kindName(value)));
  return value.asObject();
}

Value fieldValue(const Value::Object& object, size_t index, const Schema::Field& field,
                 bool replace_null_with_default) {
  // A struct value follows its schema's field order; look the name up when it does not.
  const Value* v = nullptr;
  if (index < object.size() && object[index].first == field.name) {
    v = &object[index].second;
  } else {
    for (const auto& [name, value] : object)
      if (name == field.name) v = &value;
  }
  if ((!v || v->isNull()) && replace_null_with_default && field.schema &&
      field.schema->default_value)
    return *field.schema->default_value;
  return v ? *v : Value();
}

const Value* lastEntry(const Value::Object& object, std::string_view name) {
  const Value* found = nullptr;
  for (const auto& [n, v] : object)
    if (n == name) found = &v;
  return found;
}

void putEntry(Value::Object& object, std::string_view name, Value value) {
  for (auto& [n, v] : object)
    if (n == name) {
      v = std::move(value);
      return;
    }
  object.emplace_back(std::string(name), std::move(value));
}

std::shared_ptr<const Schema> logicalSchema(Schema::Logical logical, bool optional) {
  static const auto table = [] {
    std::array<std::array<std::shared_ptr<const Schema>, 2>, 3> t;
    const std::array<std::pair<std::string_view, Schema::Type>, 3> kinds = {
        std::pair{Schema::kDateName, Schema::Type::kInt32},
        std::pair{Schema::kTimeName, Schema::Type::kInt32},
        std::pair{Schema::kTimestampName, Schema::Type::kInt64}};
    for (size_t i = 0; i < kinds.size(); ++i)
      for (int o = 0; o < 2; ++o) {
        auto s = std::make_shared<Schema>();
        s->type = kinds[i].second;
        s->name = std::string(kinds[i].first);
        s->version = 1;
        s->optional = o == 1;
        t[i][static_cast<size_t>(o)] = std::move(s);
      }
    return t;
  }();
  size_t i = 0;
  switch (logical) {
    case Schema::Logical::kDate:
      i = 0;
      break;
    case Schema::Logical::kTime:
      i = 1;
      break;
    case Schema::Logical::kTimestamp:
      i = 2;
      break;
    default:
      throw std::invalid_argument("logicalSchema: not a date or time type");
  }
  return table[i][optional ? 1 : 0];
}

std::shared_ptr<const Schema> withOptional(const std::shared_ptr<const Schema>& schema,
                                           bool optional) {
  if (schema->optional == optional) return schema;
  if (schema->name.empty() && schema->isPrimitive() && !schema->default_value &&
      schema->doc.empty() && !schema->version && schema->parameters.empty())
    return Schema::of(schema->type, optional);
  auto out = std::make_shared<Schema>(*schema);
  out->optional = optional;
  return out;
}

}  // namespace ksink::detail
