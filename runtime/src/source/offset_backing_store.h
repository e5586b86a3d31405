// OffsetBackingStore: where a source connector's offsets live, as Kafka Connect stores them —
// entries whose key is the connector and source partition, ["<connector>",{partition}], and whose
// value is the source offset, both Connect's JSON bytes (a null value: the offset was reset).
// Two kinds: the offsets topic (TopicOffsetStore) and the standalone worker's file
// (FileOffsetStore).
//
// get() and keys() show what was stored when start() read it plus what write() has since made
// durable, nothing else: a task reads only committed offsets. Not thread-safe by itself (the file
// store is, being shared): its task serialises the calls under its lock.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "source_task_driver.h"
#include "submitted_records.h"

namespace ksink {

class OffsetBackingStore : public detail::OffsetEntryReader {
 public:
  // nullopt: the entries are durable; else why not.
  using Done = std::function<void(const std::optional<std::string>& error)>;

  // Reads what is stored. Throws std::runtime_error when it cannot.
  virtual void start() = 0;
  // Begins storing `entries` (a nullopt value: a tombstone); `done` runs inside a later poll() (or
  // this call) once they are durable or have failed.
  virtual void write(const OffsetEntries& entries, Done done) = 0;
  // Serves write completions, waiting up to `timeout` for one.
  virtual void poll(std::chrono::milliseconds timeout) = 0;
  // Serves completions until no write is in flight, or `timeout` passed (at a task's end: what it
  // wrote last, copies included, is not left in a producer's queue).
  virtual void drain(std::chrono::milliseconds /*timeout*/) {}
};

}  // namespace ksink
