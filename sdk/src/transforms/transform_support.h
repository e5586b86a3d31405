// What the built-in transforms share: reaching a record's key or value, struct editing with
// schemas, and a cache of derived schemas.
//
// Derived schemas are cached per source schema object: the converters hand out one schema object
// per distinct schema, and the record mapper caches column layouts by schema pointer, so a
// transform must give records of the same input schema the same output schema object.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ksink/connect_record.h"
#include "ksink/schema.h"
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

}  // namespace ksink::detail
