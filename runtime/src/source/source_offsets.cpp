#include "source_offsets.h"

#include <fmt/format.h>

#include <stdexcept>
#include <thread>

namespace ksink {

std::string listSourceOffsets(const ConnectorRegistry::SourceEntry& source,
                              const std::string& connector, const OffsetBackingStore& store) {
  std::string out = R"({"offsets":[)";
  bool first = true;
  for (const auto& key : store.keys()) {
    const auto partition = source.partition_of(connector, key);
    const auto offset = store.get(key);
    if (!partition || !offset) continue;
    out +=
        fmt::format(R"({}{{"partition":{},"offset":{}}})", first ? "" : ",", *partition, *offset);
    first = false;
  }
  return out + "]}";
}

std::vector<std::string> alterSourceOffsets(const ConnectorRegistry::SourceEntry& source,
                                            const std::string& connector, OffsetBackingStore& store,
                                            const std::optional<std::string>& body,
                                            std::chrono::milliseconds timeout) {
  OffsetEntries entries;
  if (body) {
    for (auto& [key, value] : source.parse_offsets(connector, *body))
      entries.insert_or_assign(std::move(key), std::move(value));
  } else {
    for (const auto& key : store.keys())
      if (source.partition_of(connector, key)) entries.emplace(key, std::nullopt);
  }
  std::vector<std::string> lines;
  if (entries.empty()) {
    lines.push_back("no offsets to change");
    return lines;
  }
  std::optional<std::optional<std::string>> outcome;  // set once the write completed
  store.write(entries, [&](const std::optional<std::string>& error) { outcome = error; });
  const auto until = std::chrono::steady_clock::now() + timeout;
  while (!outcome && std::chrono::steady_clock::now() < until)
    store.poll(std::chrono::milliseconds(100));
  if (!outcome)
    throw std::runtime_error(
        fmt::format("the offsets were not stored within {} ms; nothing may "
                    "have changed",
                    timeout.count()));
  if (*outcome) throw std::runtime_error("the offsets were not stored: " + **outcome);
  for (const auto& [key, value] : entries)
    lines.push_back(value ? fmt::format("set {} to {}", key, *value)
                          : fmt::format("reset {}", key));
  return lines;
}

}  // namespace ksink
