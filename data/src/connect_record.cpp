#include "ksink/connect_record.h"

#include <algorithm>

namespace ksink {

const ConnectHeader* ConnectRecord::header(std::string_view name) const {
  for (auto it = headers.rbegin(); it != headers.rend(); ++it)
    if (it->key == name) return &*it;
  return nullptr;
}

void ConnectRecord::removeHeaders(std::string_view name) {
  std::erase_if(headers, [&](const ConnectHeader& h) { return h.key == name; });
}

ConnectRecord ConnectRecord::from(const SinkRecord& record, SchemaAndValue key,
                                  SchemaAndValue value) {
  ConnectRecord out;
  out.topic.assign(record.topic());
  out.partition = record.partition();
  out.timestamp = record.timestamp();
  out.key = std::move(key);
  out.value = std::move(value);
  out.original = &record;
  const auto headers = record.headers();
  out.headers.reserve(headers.size());
  for (const auto& h : headers) {
    SchemaAndValue v{Schema::of(Schema::Type::kString, true), Value()};
    if (h.value) v.value = Value::string(std::string(*h.value));
    out.headers.push_back({std::string(h.key), std::move(v)});
  }
  return out;
}

}  // namespace ksink
