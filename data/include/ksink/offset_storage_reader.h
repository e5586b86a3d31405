// OffsetStorageReader: the offsets a source connector committed, as its tasks read them to resume
// (Kafka Connect's OffsetStorageReader). A partition is looked up by its serialized bytes: build
// it exactly as poll() emits it (same keys in the same order, same value types).
//
// Only committed offsets are visible: what poll() returned but was not yet committed is not.
// Numbers come back as Connect reads them: whole numbers as integers (int64), others as doubles.
// Any thread, though a task normally reads in start().
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "ksink/source_record.h"

namespace ksink {

class OffsetStorageReader {
 public:
  virtual ~OffsetStorageReader() = default;
  // The committed offset of `partition`; nullopt when none was ever committed (or it was reset).
  virtual std::optional<SourceMap> offset(const SourceMap& partition) const = 0;
  // The committed offsets of those of `partitions` that have one, in the order asked.
  virtual std::vector<std::pair<SourceMap, SourceMap>> offsets(
      const std::vector<SourceMap>& partitions) const = 0;
};

}  // namespace ksink
