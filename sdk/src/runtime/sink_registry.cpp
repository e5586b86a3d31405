#include "ksink/sink_registry.h"

namespace ksink {

SinkRegistry& SinkRegistry::global() {
  static SinkRegistry registry;
  return registry;
}

void SinkRegistry::add(Entry entry, const std::vector<std::string>& aliases) {
  for (const auto& alias : aliases) aliases_.insert_or_assign(alias, entry.name);
  std::string name = entry.name;
  entries_.insert_or_assign(std::move(name), std::move(entry));
}

void SinkRegistry::claim(std::string name, std::string sink, Claim claim) {
  claims_.push_back({std::move(name), std::move(sink), std::move(claim)});
}

const SinkRegistry::Entry* SinkRegistry::find(
    std::string_view name, const std::map<std::string, std::string>& config) const {
  for (const auto& c : claims_) {
    if (c.name == name && c.claim(config)) {
      name = c.sink;
      break;
    }
  }
  if (auto alias = aliases_.find(name); alias != aliases_.end()) name = alias->second;
  auto it = entries_.find(name);
  return it == entries_.end() ? nullptr : &it->second;
}

std::vector<std::string> SinkRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [name, entry] : entries_) out.push_back(name);
  return out;
}

}  // namespace ksink
