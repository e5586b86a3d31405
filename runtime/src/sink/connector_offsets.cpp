#include "connector_offsets.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>
#include <utility>

#include "group_offsets.h"

namespace ksink {
namespace {

class BrokerGroup final : public ConnectorGroup {
 public:
  explicit BrokerGroup(SinkConnectorConfig settings) : settings_(std::move(settings)) {}
  std::string id() const override { return settings_.group_id; }
  void requireNoMembers() override { requireNoGroupMembers(settings_); }
  void reset() override { resetGroupOffsets(settings_); }
  void alter(const OffsetMap& offsets) override { alterGroupOffsets(settings_, offsets); }

 private:
  SinkConnectorConfig settings_;
};

std::string describe(const OffsetMap& offsets) {
  std::vector<std::string> items;
  for (const auto& [tp, offset] : offsets) items.push_back(fmt::format("{}={}", tp, offset));
  return fmt::format("{}", fmt::join(items, ", "));
}

}  // namespace

std::unique_ptr<ConnectorGroup> brokerGroup(const SinkConnectorConfig& settings) {
  return std::make_unique<BrokerGroup>(settings);
}

std::vector<std::string> alterConnectorOffsets(const Config& config,
                                               const ConnectorRegistry::SinkEntry& sink,
                                               const std::optional<OffsetMap>& offsets,
                                               ConnectorGroup& group) {
  const auto connector = config.get("name").value_or("");
  const char* verb = offsets ? "set" : "reset";
  group.requireNoMembers();

  std::vector<std::string> done;
  if (sink.alter_offsets) {
    try {
      sink.alter_offsets(config, offsets);
    } catch (const std::exception& e) {
      throw std::runtime_error(fmt::format(
          "sink {} could not {} the offsets it stores for connector {}: {}. The consumer "
          "group's offsets are unchanged",
          sink.name, verb, connector, e.what()));
    }
    done.push_back(offsets ? fmt::format("sink {}: stored offsets of connector {} set: {}",
                                         sink.name, connector, describe(*offsets))
                           : fmt::format("sink {}: stored offsets of connector {} forgotten",
                                         sink.name, connector));
  } else {
    done.push_back(fmt::format("sink {} stores no offsets of its own", sink.name));
  }

  try {
    if (offsets) {
      group.alter(*offsets);
      done.push_back(
          fmt::format("group {}: committed offsets set: {}", group.id(), describe(*offsets)));
    } else {
      group.reset();
      done.push_back(
          fmt::format("group {} deleted: tasks start from auto.offset.reset", group.id()));
    }
  } catch (const std::exception& e) {
    if (!sink.alter_offsets) throw;
    throw std::runtime_error(fmt::format(
        "{}. The sink's stored offsets were {} already: run the command again, with the "
        "connector stopped, to {} the group's too",
        e.what(), verb, verb));
  }
  return done;
}

}  // namespace ksink
