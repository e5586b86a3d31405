#include "offsets_command.h"

#include <fmt/format.h>

#include <optional>
#include <regex>

#include "cli_exit_codes.h"
#include "connector_file.h"
#include "connector_offsets.h"
#include "group_offsets.h"
#include "offset_stores.h"
#include "sink_connector_config.h"
#include "source_connector_config.h"
#include "source_offsets.h"

namespace ksink {
namespace {

// "topic:partition=offset" (the topic may contain ':' but not '=').
OffsetMap parseOffsetAssignments(const std::vector<std::string>& items) {
  static const std::regex form(R"((.+):(\d+)=(\d+))");
  OffsetMap out;
  for (const auto& item : items) {
    std::smatch m;
    if (!std::regex_match(item, m, form))
      throw ConfigException({{"--set", fmt::format("'{}' is not topic:partition=offset", item)}});
    out[{m[1], std::stoi(m[2])}] = std::stoll(m[3]);
  }
  return out;
}

// A source connector's offsets as Connect's GET /connectors/<name>/offsets shows them; --set takes
// its PATCH body, --reset is its DELETE.
int sourceOffsets(const ConnectorFile& connector, bool reset,
                  const std::vector<std::string>& assignments) {
  const auto settings = SourceConnectorConfig::parse(connector.config);
  const auto& name = settings.worker.name;
  const bool change = reset || !assignments.empty();
  // Only a change needs the file to itself; the list is read beside a running connector.
  auto store = openOffsetStore(
      settings, change ? FileOffsetStore::Access::kReadWrite : FileOffsetStore::Access::kRead);
  store->start();
  if (change) {
    if (!reset && assignments.size() != 1)
      throw ConfigException({{"--set", std::string("a source connector takes one JSON body, ") +
                                           R"({"offsets":[{"partition":{…},"offset":{…}},…]})"}});
    if (settings.offsets_file.empty())
      fmt::print(
          "note: nothing in the offsets topic {} shows whether a task of {} runs; one that "
          "does would overwrite this change at its next commit\n",
          settings.offsets_topic, name);
    std::optional<std::string> body;
    if (!reset) body = assignments.front();
    for (const auto& line : alterSourceOffsets(*connector.source, name, *store, body,
                                               settings.worker.offset_flush_timeout))
      fmt::print("{}\n", line);
  }
  fmt::print("{}\n", listSourceOffsets(*connector.source, name, *store));
  return 0;
}

}  // namespace

int offsetsCommand(const std::string& worker_file, const std::string& connector_file, bool reset,
                   const std::vector<std::string>& assignments) {
  try {
    const auto connector = loadConnector(readWorker(worker_file), connector_file);
    if (connector.source) return sourceOffsets(connector, reset, assignments);
    const auto settings = SinkConnectorConfig::parse(connector.config);
    if (reset || !assignments.empty()) {
      std::optional<OffsetMap> target;
      if (!reset) target = parseOffsetAssignments(assignments);
      auto group = brokerGroup(settings);
      for (const auto& line :
           alterConnectorOffsets(connector.config, *connector.sink, target, *group))
        fmt::print("{}\n", line);
    }
    fmt::print("group {}\n{:<40} {:>9} {:>12} {:>12} {:>10}\n", settings.group_id, "topic",
               "partition", "committed", "end", "lag");
    for (const auto& row : readGroupOffsets(settings)) {
      fmt::print("{:<40} {:>9} {:>12} {:>12} {:>10}\n", row.tp.topic, row.tp.partition,
                 row.committed ? std::to_string(*row.committed) : "-", row.end,
                 row.end - row.committed.value_or(0));
    }
    return 0;
  } catch (const ConfigException& e) {
    fmt::print(stderr, "ksink: {}\n", e.what());
    return kExitBadConfig;
  } catch (const std::exception& e) {
    fmt::print(stderr, "ksink: {}\n", e.what());
    return kExitFailed;
  }
}

}  // namespace ksink
