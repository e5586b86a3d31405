#include "rest_offsets.h"

#include <fmt/format.h>

#include "connector_offsets.h"
#include "group_offsets.h"
#include "json_text.h"
#include "ksink/config_exception.h"
#include "offset_stores.h"
#include "sink_connector_config.h"
#include "source_connector_config.h"
#include "source_offsets.h"

namespace ksink {
namespace {

[[noreturn]] void badBody(std::string reason) {
  throw ConfigException({{"offsets", std::move(reason)}});
}

const Value& field(const Value& object, std::string_view name, Value::Kind kind,
                   std::string_view where) {
  const auto* value = object.find(name);
  if (!value || value->kind() != kind)
    badBody(fmt::format("each entry's {} must have \"{}\"", where, name));
  return *value;
}

// A sink's PATCH body: the partitions to set. A null offset (Connect resets that partition) is
// refused: ksink resets a sink's offsets as a whole.
OffsetMap sinkOffsetsOf(const std::string& body) {
  const auto parsed = Value::object(parseJsonObject(body));
  const auto* entries = parsed.find("offsets");
  if (!entries || entries->kind() != Value::Kind::kArray)
    badBody(R"(the body must be {"offsets":[{"partition":{…},"offset":{…}},…]})");
  OffsetMap out;
  for (const auto& entry : entries->asArray()) {
    const auto& partition = field(entry, "partition", Value::Kind::kObject, "entry");
    const auto* offset = entry.find("offset");
    if (!offset || offset->isNull())
      badBody("a sink's offsets are reset as a whole (DELETE …/offsets), not one partition");
    const auto& topic = field(partition, "kafka_topic", Value::Kind::kString, "partition");
    const auto& number = field(partition, "kafka_partition", Value::Kind::kInt, "partition");
    const auto& next = field(*offset, "kafka_offset", Value::Kind::kInt, "offset");
    out[{topic.asString(), static_cast<int32_t>(number.asInt())}] = next.asInt();
  }
  return out;
}

}  // namespace

std::string offsetsJson(const ConnectorFile& connector) {
  if (connector.source) {
    const auto settings = SourceConnectorConfig::parse(connector.config);
    auto store = openOffsetStore(settings, FileOffsetStore::Access::kRead);
    store->start();
    return listSourceOffsets(*connector.source, settings.worker.name, *store);
  }
  std::string out;
  for (const auto& row : readGroupOffsets(SinkConnectorConfig::parse(connector.config))) {
    if (!row.committed) continue;
    out += fmt::format(
        R"({}{{"partition":{{"kafka_topic":{},"kafka_partition":{}}},"offset":{{"kafka_offset":{}}}}})",
        out.empty() ? "" : ",", jsonText(row.tp.topic), row.tp.partition, *row.committed);
  }
  return R"({"offsets":[)" + out + "]}";
}

std::string alterOffsets(const ConnectorFile& connector, const std::optional<std::string>& body) {
  if (connector.source) {
    const auto settings = SourceConnectorConfig::parse(connector.config);
    auto store = openOffsetStore(settings, FileOffsetStore::Access::kReadWrite);
    store->start();
    alterSourceOffsets(*connector.source, settings.worker.name, *store, body,
                       settings.worker.offset_flush_timeout);
  } else {
    const auto settings = SinkConnectorConfig::parse(connector.config);
    std::optional<OffsetMap> target;
    if (body) target = sinkOffsetsOf(*body);
    auto group = brokerGroup(settings);
    alterConnectorOffsets(connector.config, *connector.sink, target, *group);
  }
  return fmt::format(R"({{"message":"The offsets for this connector have been {} successfully"}})",
                     body ? "altered" : "reset");
}

}  // namespace ksink
