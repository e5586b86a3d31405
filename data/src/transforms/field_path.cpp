#include "field_path.h"

#include <fmt/format.h>

#include "ksink/config_exception.h"
#include "ksink/conversion_error.h"
#include "ksink/detail/config_parse.h"
#include "transform_support.h"

namespace ksink::detail {

FieldPath::FieldPath(std::string_view path, bool v2, std::string_view key) {
  if (!v2) {
    steps_.emplace_back(path);
    return;
  }
  const auto incomplete = [&](size_t at) {
    throw configError(std::string(key),
                      fmt::format("Incomplete backtick pair in path: [{}], consider adding a "
                                  "backslash before backtick at position {} to escape it",
                                  path, at));
  };
  size_t idx = 0;
  while (idx < path.size()) {
    if (path[idx] != '`') {
      const auto dot = path.find('.', idx);
      steps_.emplace_back(path.substr(idx, dot == std::string_view::npos ? path.npos : dot - idx));
      if (dot == std::string_view::npos) break;
      idx = dot + 1;
      continue;
    }
    const size_t backtick_at = idx;
    ++idx;
    std::string field;
    size_t start = idx;
    while (true) {
      idx = path.find('`', idx);
      if (idx == std::string_view::npos) incomplete(backtick_at);
      const bool escaped = path[idx - 1] == '\\';
      if (idx >= path.size() - 1) {
        if (escaped) incomplete(backtick_at);
        field.append(path.substr(start, idx - start));
        steps_.push_back(std::move(field));
        ++idx;
        break;
      }
      if (path[idx + 1] != '.') {
        ++idx;
        continue;
      }
      if (escaped) {
        field.append(path.substr(start, idx - 1 - start));
        field.push_back('`');
        ++idx;
        start = idx;
        continue;
      }
      field.append(path.substr(start, idx - start));
      steps_.push_back(std::move(field));
      idx += 2;
      break;
    }
  }
  if (!path.empty() && path.back() == '.') steps_.emplace_back();
  if (steps_.empty()) steps_.emplace_back();
}

const Schema::Field* FieldPath::fieldFrom(const Schema& schema) const {
  const Schema* current = &schema;
  for (size_t i = 0; i < steps_.size(); ++i) {
    if (current->type != Schema::Type::kStruct)
      throw ConversionError(
          fmt::format("Cannot look up fields on non-struct type {}", format_as(*current)));
    const auto* field = current->field(steps_[i]);
    if (!field || i + 1 == steps_.size()) return field;
    current = field->schema.get();
  }
  return nullptr;
}

Value FieldPath::valueFrom(const Schema& schema, const Value& value,
                           bool replace_null_with_default) const {
  const Schema* current_schema = &schema;
  Value current = value;
  for (size_t i = 0; i < steps_.size(); ++i) {
    if (current.isNull()) return Value();
    if (current_schema->type != Schema::Type::kStruct || current.kind() != Value::Kind::kObject)
      throw ConversionError(
          fmt::format("Only Struct objects supported for [nested field access], found: {}",
                      format_as(*current_schema)));
    const auto& fields = current_schema->fields;
    size_t index = 0;
    while (index < fields.size() && fields[index].name != steps_[i]) ++index;
    if (index == fields.size()) return Value();
    const bool last = i + 1 == steps_.size();
    // Intermediate steps always take a struct's default, as Connect's Struct.get does.
    Value next = fieldValue(current.asObject(), index, fields[index],
                            last ? replace_null_with_default : true);
    current_schema = fields[index].schema.get();
    current = std::move(next);
  }
  return current;
}

Value FieldPath::valueFrom(const Value& value) const {
  const Value* current = &value;
  for (size_t i = 0; i < steps_.size(); ++i) {
    if (current->isNull()) return Value();
    if (current->kind() != Value::Kind::kObject)
      throw ConversionError(fmt::format(
          "Only Map objects supported in absence of schema for [nested field access], found: {}",
          kindName(*current)));
    current = current->find(steps_[i]);
    if (!current) return Value();
  }
  return *current;
}

const ConfigDef& fieldSyntaxVersionDef() {
  static const ConfigDef def = ConfigDef().define(
      "field.syntax.version", ConfigDef::Type::kString, "V1", ConfigDef::Importance::kHigh,
      "V1: a field name at the root of the struct or map; V2: a dotted path to a nested "
      "field, with backticks around names that contain dots (`foo.bar`.baz).",
      [](std::string_view value) -> std::optional<std::string> {
        const auto v = trim(value);
        if (v == "V1" || v == "v1" || v == "V2" || v == "v2") return std::nullopt;
        return fmt::format("'{}' is not one of [V1, V2] (Unrecognized field syntax version)",
                           value);
      });
  return def;
}

bool fieldSyntaxIsV2(std::string_view value) {
  const auto v = trim(value);
  return v == "V2" || v == "v2";
}

}  // namespace ksink::detail
