// ConnectorOffsetStore: a connector's own offsets topic (its offsets.storage.topic, KIP-618) in
// front of the worker's (offset.storage.topic), as Kafka Connect's ConnectorOffsetBackingStore:
//
// - get() answers from the connector's topic and, for a partition it never held, from the
//   worker's: a source that ran with the worker's topic and is then given one of its own (as
//   exactly once suggests) resumes where it was instead of starting over. A partition whose
//   offset was reset in the connector's topic (a tombstone read or written there) does not fall
//   back. (Connect documents the fallback; its code lets a partition missing from the connector's
//   topic read as null.)
// - write() stores in the connector's topic and, once that succeeded, copies the entries to the
//   worker's topic, so a connector moved back finds its newest offsets there; a reset's tombstones
//   go to the worker's topic first (KAFKA-15018), so a failed reset never leaves an old offset to
//   fall back to. A failed copy is logged, not failed: the connector's topic holds the truth.
// - committed() is the same copy for an exactly-once task, whose offsets reached the connector's
//   topic in the transaction of its records.
//
// Without a topic of its own (or with the worker's) a connector has just the primary.
// Not thread-safe (OffsetBackingStore's contract): its task serialises the calls.
#pragma once

#include <memory>
#include <string>

#include "offset_backing_store.h"
#include "topic_offset_store.h"

namespace ksink {

class ConnectorOffsetStore final : public OffsetBackingStore {
 public:
  // `fallback`: the worker's topic, or nullptr.
  ConnectorOffsetStore(std::shared_ptr<TopicOffsetStore> primary,
                       std::shared_ptr<TopicOffsetStore> fallback);

  void start() override;
  void write(const OffsetEntries& entries, Done done) override;
  void poll(std::chrono::milliseconds timeout) override;
  void drain(std::chrono::milliseconds timeout) override;
  std::optional<std::string> get(std::string_view key) const override;
  std::vector<std::string> keys() const override;

  // The topic the connector's offsets are written to (in its transactions, exactly once).
  const std::string& topic() const { return primary_->topic(); }
  // Entries an exactly-once task committed in its transaction: visible from now on, and copied
  // to the worker's topic.
  void committed(const OffsetEntries& entries);

 private:
  void copy(const OffsetEntries& entries);

  std::shared_ptr<TopicOffsetStore> primary_;
  std::shared_ptr<TopicOffsetStore> fallback_;
};

}  // namespace ksink
