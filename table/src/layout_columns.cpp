#include "layout_columns.h"

#include <fmt/format.h>

#include <algorithm>

#include "ksink/conversion_error.h"

namespace ksink {

using PkMode = TableSinkConfig::PkMode;

bool isObject(const SchemaAndValue& sv) {
  return sv.value.kind() == Value::Kind::kObject &&
         (!sv.schema || sv.schema->type == Schema::Type::kStruct);
}

std::shared_ptr<const Schema> inferSchema(const Value& v) {
  return Schema::of(Schema::inferredType(v), true);
}

std::vector<FieldRef> fieldsOf(const SchemaAndValue& sv) {
  std::vector<FieldRef> out;
  const auto& obj = sv.value.asObject();
  if (sv.schema) {
    for (size_t i = 0; i < sv.schema->fields.size(); ++i)
      out.push_back({sv.schema->fields[i].name, sv.schema->fields[i].schema, i});
  } else {
    for (size_t i = 0; i < obj.size(); ++i)
      out.push_back({obj[i].first, inferSchema(obj[i].second), i});
  }
  return out;
}

std::shared_ptr<const Schema> wholeSchema(const SchemaAndValue& sv) {
  return sv.schema ? sv.schema : inferSchema(sv.value);
}

void LayoutColumns::add(std::string_view field, std::shared_ptr<const Schema> schema, bool pk,
                        Source source) {
  auto name = config_.identifier(field);
  for (const auto& c : layout_.columns)
    if (c.name == name) return;  // the key's column wins over a value field of the same name
  layout_.columns.push_back({std::move(name), std::move(schema), pk});
  sources_.push_back(source);
}

std::vector<FieldRef> LayoutColumns::keyFields(const SchemaAndValue& sv,
                                               const std::vector<FieldRef>& fields,
                                               const char* what) const {
  std::vector<FieldRef> out;
  if (config_.pk_fields.empty()) {
    if (config_.field_filter.empty()) return fields;
    for (const auto& f : fields)
      if (config_.field_filter.keeps(topic_, f.name)) out.push_back(f);
    return out;
  }
  if (config_.table_style == TableSinkConfig::TableStyle::kDebezium) {
    // The Debezium sink's key columns keep the record's field order, whatever pk.fields says.
    for (const auto& f : fields)
      if (std::find(config_.pk_fields.begin(), config_.pk_fields.end(), f.name) !=
          config_.pk_fields.end())
        out.push_back(f);
    if (out.size() == config_.pk_fields.size()) return out;
    out.clear();  // a name the record lacks: reported below
  }
  for (const auto& name : config_.pk_fields) {
    auto it = std::find_if(fields.begin(), fields.end(),
                           [&](const FieldRef& f) { return f.name == name; });
    if (it == fields.end())
      throw ConversionError(
          fmt::format("pk.fields names '{}', which the record {} ({}) does not have", name, what,
                      sv.schema ? format_as(*sv.schema) : "schemaless"));
    out.push_back(*it);
  }
  return out;
}

void LayoutColumns::addKeyColumns(const SchemaAndValue& key, const SchemaAndValue& value) {
  switch (config_.pk_mode) {
    case PkMode::kNone:
      break;
    case PkMode::kKafka:
      add(config_.pk_fields[0], Schema::of(Schema::Type::kString), true, {Source::Kind::kTopic});
      add(config_.pk_fields[1], Schema::of(Schema::Type::kInt32), true, {Source::Kind::kPartition});
      add(config_.pk_fields[2], Schema::of(Schema::Type::kInt64), true, {Source::Kind::kOffset});
      break;
    case PkMode::kRecordKey:
      if (key.value.isNull())
        throw ConversionError("pk.mode=record_key but the record key is null");
      if (isObject(key)) {
        for (const auto& f : keyFields(key, fieldsOf(key), "key"))
          add(std::string(f.name), f.schema, true, {Source::Kind::kKeyField, f.index});
      } else {
        if (config_.pk_fields.size() > 1)
          throw ConversionError(
              fmt::format("pk.fields names {} fields but the record key is not a struct",
                          config_.pk_fields.size()));
        add(config_.pk_fields.empty() ? std::string(TableSinkConfig::kKeyColumn)
                                      : config_.pk_fields[0],
            wholeSchema(key), true, {Source::Kind::kWholeKey});
      }
      break;
    case PkMode::kRecordValue:
      if (!isObject(value))
        throw ConversionError("pk.mode=record_value but the record value is not a struct/object");
      for (const auto& f : keyFields(value, fieldsOf(value), "value"))
        add(std::string(f.name), f.schema, true, {Source::Kind::kValueField, f.index});
      break;
  }
}

void LayoutColumns::addValueColumns(const SchemaAndValue& value) {
  if (!isObject(value)) {
    add(std::string(TableSinkConfig::kValueColumn), wholeSchema(value), false,
        {Source::Kind::kWholeValue});
    return;
  }
  const auto& allow = config_.fields_whitelist;
  for (const auto& f : fieldsOf(value)) {
    if (!allow.empty() && std::find(allow.begin(), allow.end(), f.name) == allow.end()) continue;
    if (!config_.field_filter.empty() && !config_.field_filter.keeps(topic_, f.name)) continue;
    add(std::string(f.name), f.schema, false, {Source::Kind::kValueField, f.index});
  }
}

}  // namespace ksink
