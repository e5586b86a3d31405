#include "ksink/connector_registry.h"

#include <algorithm>

namespace ksink {

ConnectorRegistry& ConnectorRegistry::global() {
  static ConnectorRegistry registry;
  return registry;
}

void ConnectorRegistry::add(SinkEntry entry, const std::vector<std::string>& aliases) {
  for (const auto& alias : aliases) aliases_.insert_or_assign(alias, entry.name);
  sources_.erase(entry.name);
  std::string name = entry.name;
  entries_.insert_or_assign(std::move(name), std::move(entry));
}

void ConnectorRegistry::addSource(SourceEntry entry, const std::vector<std::string>& aliases) {
  for (const auto& alias : aliases) aliases_.insert_or_assign(alias, entry.name);
  entries_.erase(entry.name);
  std::string name = entry.name;
  sources_.insert_or_assign(std::move(name), std::move(entry));
}

void ConnectorRegistry::claim(std::string name, std::string target, Claim claim,
                              std::string serves) {
  claims_.push_back({std::move(name), std::move(target), std::move(claim), std::move(serves)});
}

std::vector<std::string> ConnectorRegistry::claimsOf(std::string_view name) const {
  std::vector<std::string> out;
  for (const auto& c : claims_)
    if (c.name == name) out.push_back(c.serves.empty() ? c.target : c.serves);
  return out;
}

template <typename Entries>
std::string_view ConnectorRegistry::resolve(std::string_view name,
                                            const std::map<std::string, std::string>& config,
                                            const Entries& targets) const {
  for (const auto& c : claims_) {
    if (c.name == name && targets.contains(c.target) && c.claim(config)) {
      name = c.target;
      break;
    }
  }
  if (auto alias = aliases_.find(name); alias != aliases_.end()) return alias->second;
  return name;
}

const ConnectorRegistry::SinkEntry* ConnectorRegistry::find(
    std::string_view name, const std::map<std::string, std::string>& config) const {
  auto it = entries_.find(resolve(name, config, entries_));
  return it == entries_.end() ? nullptr : &it->second;
}

const ConnectorRegistry::SourceEntry* ConnectorRegistry::findSource(
    std::string_view name, const std::map<std::string, std::string>& config) const {
  auto it = sources_.find(resolve(name, config, sources_));
  return it == sources_.end() ? nullptr : &it->second;
}

std::vector<std::string> ConnectorRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [name, entry] : entries_) out.push_back(name);
  for (const auto& [name, entry] : sources_) out.push_back(name);
  std::sort(out.begin(), out.end());
  return out;
}

std::map<std::string, std::string> ConnectorRegistry::classes() const {
  std::map<std::string, std::string> out;
  auto typeOf = [&](std::string_view target) {
    return entries_.contains(target) ? "sink" : "source";
  };
  auto add = [&](const std::string& name, const std::string& type) {
    auto [it, added] = out.emplace(name, type);
    if (!added && it->second != type) it->second = "sink, source";
  };
  for (const auto& [name, entry] : entries_) add(name, "sink");
  for (const auto& [name, entry] : sources_) add(name, "source");
  for (const auto& [alias, target] : aliases_) add(alias, typeOf(target));
  for (const auto& c : claims_) add(c.name, typeOf(c.target));
  return out;
}

}  // namespace ksink
