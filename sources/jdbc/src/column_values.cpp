#include "column_values.h"

#include <fmt/format.h>

#include <stdexcept>

#include "source_database.h"

namespace ksink::jdbc {

std::shared_ptr<Schema> columnSchema(Schema::Type type, bool optional, std::string_view name) {
  auto s = std::make_shared<Schema>();
  s->type = type;
  s->optional = optional;
  s->name = std::string(name);
  return s;
}

std::shared_ptr<Schema> logicalSchema(Schema::Type type, bool optional, std::string_view name) {
  auto s = columnSchema(type, optional, name);
  s->version = 1;
  return s;
}

std::shared_ptr<Schema> decimalSchema(int32_t scale, bool optional) {
  auto s = logicalSchema(Schema::Type::kBytes, optional, Schema::kDecimalName);
  s->parameters[std::string(Schema::kScaleParameter)] = std::to_string(scale);
  return s;
}

std::shared_ptr<Schema> variableScaleDecimalSchema(bool optional) {
  auto s = columnSchema(Schema::Type::kStruct, optional, Schema::kVariableScaleDecimalName);
  s->fields = {{"scale", Schema::of(Schema::Type::kInt32)},
               {"value", Schema::of(Schema::Type::kBytes)}};
  return s;
}

Value decimalValue(std::string_view text, int32_t scale) {
  auto unscaled = Value::decimalFromString(text, scale);
  if (!unscaled) throw std::invalid_argument(fmt::format("'{}' is not a decimal", text));
  return Value::bytes(std::move(*unscaled));
}

Value variableScaleDecimalValue(std::string_view text) {
  const auto point = text.find('.');
  const int32_t scale =
      point == std::string_view::npos ? 0 : static_cast<int32_t>(text.size() - point - 1);
  return Value::object({{"scale", Value::integer(scale)}, {"value", decimalValue(text, scale)}});
}

size_t columnIndex(const std::vector<Schema::Field>& fields, const std::string& name) {
  for (size_t i = 0; i < fields.size(); ++i)
    if (fields[i].name == name) return i;
  throw DbError(DbFailure::kFatal,
                fmt::format("the result has no column {} (the mode's column)", name));
}

}  // namespace ksink::jdbc
