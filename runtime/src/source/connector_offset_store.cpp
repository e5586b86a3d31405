#include "connector_offset_store.h"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace ksink {

ConnectorOffsetStore::ConnectorOffsetStore(std::shared_ptr<TopicOffsetStore> primary,
                                           std::shared_ptr<TopicOffsetStore> fallback)
    : primary_(std::move(primary)), fallback_(std::move(fallback)) {}

void ConnectorOffsetStore::start() {
  primary_->start();
  if (fallback_) fallback_->start();
}

std::optional<std::string> ConnectorOffsetStore::get(std::string_view key) const {
  if (auto value = primary_->get(key)) return value;
  if (!fallback_ || primary_->wasReset(key)) return std::nullopt;
  return fallback_->get(key);
}

std::vector<std::string> ConnectorOffsetStore::keys() const {
  auto out = primary_->keys();
  if (!fallback_) return out;
  for (auto& key : fallback_->keys())
    if (!primary_->get(key) && !primary_->wasReset(key)) out.push_back(std::move(key));
  return out;
}

void ConnectorOffsetStore::write(const OffsetEntries& entries, Done done) {
  if (!fallback_) return primary_->write(entries, std::move(done));
  OffsetEntries resets;
  for (const auto& [key, value] : entries)
    if (!value) resets.emplace(key, std::nullopt);
  auto to_primary = [this, entries,
                     done = std::move(done)](const std::optional<std::string>& error) mutable {
    if (error) return done(error);
    primary_->write(
        entries, [this, entries, done = std::move(done)](const std::optional<std::string>& error) {
          if (!error) {
            OffsetEntries values;
            for (const auto& [key, value] : entries)
              if (value) values.emplace(key, value);
            copy(values);
          }
          done(error);
        });
  };
  if (resets.empty()) return to_primary(std::nullopt);
  // The resets reach the worker's topic first: were they then lost in the connector's, the old
  // offsets there would no longer be read.
  fallback_->write(resets, [to_primary = std::move(to_primary)](
                               const std::optional<std::string>& error) mutable {
    to_primary(error ? std::optional<std::string>(
                           "resetting offsets in the worker's offsets topic: " + *error)
                     : std::nullopt);
  });
}

void ConnectorOffsetStore::committed(const OffsetEntries& entries) {
  primary_->remember(entries);
  if (fallback_) copy(entries);
}

void ConnectorOffsetStore::copy(const OffsetEntries& entries) {
  if (entries.empty()) return;
  fallback_->write(entries, [topic = fallback_->topic()](const std::optional<std::string>& error) {
    if (error)
      spdlog::warn(
          "source offsets were stored in the connector's offsets topic but not copied to the "
          "worker's, {} ({}); a connector moved back to it would resume from older offsets",
          topic, *error);
  });
}

void ConnectorOffsetStore::drain(std::chrono::milliseconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  primary_->drain(timeout);
  if (fallback_)
    fallback_->drain(std::max(std::chrono::duration_cast<std::chrono::milliseconds>(
                                  until - std::chrono::steady_clock::now()),
                              std::chrono::milliseconds(0)));
}

void ConnectorOffsetStore::poll(std::chrono::milliseconds timeout) {
  primary_->poll(fallback_ ? std::chrono::milliseconds(0) : timeout);
  if (fallback_) fallback_->poll(timeout);
}

}  // namespace ksink
