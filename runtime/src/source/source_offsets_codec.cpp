#include "source_offsets_codec.h"

#include <fmt/format.h>

#include "ksink/config_exception.h"
#include "source_task_adapter.h"

namespace ksink {
namespace {

[[noreturn]] void bad(const std::string& reason) {
  throw ConfigException({{"--set", reason}});
}

const Value* field(const Value::Object& object, std::string_view name) {
  for (const auto& [key, value] : object)
    if (key == name) return &value;
  return nullptr;
}

// A partition or offset: a map of primitives, or null.
std::optional<SourceMap> sourceMap(const Value* value, std::string_view what, size_t index) {
  if (!value || value->isNull()) return std::nullopt;
  if (value->kind() != Value::Kind::kObject)
    bad(fmt::format("offsets[{}].{} must be an object or null", index, what));
  for (const auto& [key, v] : value->asObject())
    if (v.kind() == Value::Kind::kArray || v.kind() == Value::Kind::kObject)
      bad(fmt::format("offsets[{}].{}.{} must be a primitive value", index, what, key));
  return value->asObject();
}

}  // namespace

std::vector<std::pair<std::string, std::optional<std::string>>> parseSourceOffsets(
    std::string_view connector, std::string_view body) {
  auto json = SourceTaskAdapter::offsetConverter();
  Value parsed;
  try {
    parsed = json->toConnectData("", body).value;
  } catch (const std::exception& e) {
    bad(fmt::format("not JSON: {}", e.what()));
  }
  const Value* offsets =
      parsed.kind() == Value::Kind::kObject ? field(parsed.asObject(), "offsets") : nullptr;
  if (!offsets || offsets->kind() != Value::Kind::kArray)
    bad(R"(expected {"offsets":[{"partition":{…},"offset":{…}},…]} (Kafka Connect's PATCH body))");
  std::vector<std::pair<std::string, std::optional<std::string>>> out;
  for (size_t i = 0; i < offsets->asArray().size(); ++i) {
    const auto& element = offsets->asArray()[i];
    if (element.kind() != Value::Kind::kObject)
      bad(fmt::format("offsets[{}] must be an object with partition and offset", i));
    const Value* partition = field(element.asObject(), "partition");
    if (!partition) bad(fmt::format("offsets[{}] has no partition", i));
    if (!field(element.asObject(), "offset")) bad(fmt::format("offsets[{}] has no offset", i));
    out.emplace_back(SourceTaskAdapter::offsetKey(connector, sourceMap(partition, "partition", i)),
                     SourceTaskAdapter::offsetValue(
                         sourceMap(field(element.asObject(), "offset"), "offset", i)));
  }
  return out;
}

std::optional<std::string> sourcePartitionOf(std::string_view connector, std::string_view key) {
  auto json = SourceTaskAdapter::offsetConverter();
  try {
    const auto parsed = json->toConnectData("", key).value;
    if (parsed.kind() != Value::Kind::kArray || parsed.asArray().size() != 2) return std::nullopt;
    const auto& name = parsed.asArray()[0];
    if (name.kind() != Value::Kind::kString || name.asString() != connector) return std::nullopt;
    return json->fromConnectData("", SchemaAndValue{nullptr, parsed.asArray()[1]}).value_or("null");
  } catch (const std::exception&) {
    return std::nullopt;  // not an entry of Connect's shape: Connect skips those too
  }
}

}  // namespace ksink
