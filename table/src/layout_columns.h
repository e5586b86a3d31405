// LayoutColumns: the columns a record's key and value make in its table, in order — the primary
// key's first (pk.mode: none, kafka coordinates, the key's fields or whole key, the value's
// fields), then the value's fields (all, or those fields.whitelist and the field filter keep; a
// value that is not a struct is one column) — each with where its value comes from (Source).
// A key column wins over a value field of the same name. What the record lacks for pk.fields, or
// a pk.mode the record cannot serve, throws ConversionError.
//
// Also the helpers RecordMapper reads records with: whether a value is an object, the fields of
// one, and the schema a schemaless value is given.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "ksink/record_mapper.h"
#include "ksink/value.h"

namespace ksink {

// Where a column's value comes from.
struct Source {
  enum class Kind { kTopic, kPartition, kOffset, kWholeKey, kKeyField, kWholeValue, kValueField };
  Kind kind;
  size_t index = 0;  // field index in the key/value object
};

// One column from a field of an object (struct or schemaless).
struct FieldRef {
  std::string_view name;
  std::shared_ptr<const Schema> schema;
  size_t index;
};

bool isObject(const SchemaAndValue& sv);
// A schemaless value's column type: int64, float64, boolean, string (null too: text holds
// anything a later record brings), bytes; objects and arrays as map and array; always optional.
std::shared_ptr<const Schema> inferSchema(const Value& v);
std::vector<FieldRef> fieldsOf(const SchemaAndValue& sv);
std::shared_ptr<const Schema> wholeSchema(const SchemaAndValue& sv);

class LayoutColumns {
 public:
  // Adds to `layout`'s columns and to `sources` (parallel to them); all must outlive it.
  LayoutColumns(const TableSinkConfig& config, std::string_view topic, RecordMapper::Layout& layout,
                std::vector<Source>& sources)
      : config_(config), topic_(topic), layout_(layout), sources_(sources) {}

  void addKeyColumns(const SchemaAndValue& key, const SchemaAndValue& value);
  void addValueColumns(const SchemaAndValue& value);

 private:
  void add(std::string_view field, std::shared_ptr<const Schema> schema, bool pk, Source source);
  // The fields of `sv` (the record's `what`) that form the key: pk.fields' (in the record's order
  // for the Debezium table style), else those the field filter keeps.
  std::vector<FieldRef> keyFields(const SchemaAndValue& sv, const std::vector<FieldRef>& fields,
                                  const char* what) const;

  const TableSinkConfig& config_;
  const std::string_view topic_;
  RecordMapper::Layout& layout_;
  std::vector<Source>& sources_;
};

}  // namespace ksink
