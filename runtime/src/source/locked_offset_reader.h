// LockedOffsetReader: a source task's committed offsets as the task reads them — the store behind
// its worker's lock, since the worker's other thread writes to the store as commits complete.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "source_task_driver.h"

namespace ksink {

class LockedOffsetReader final : public detail::OffsetEntryReader {
 public:
  LockedOffsetReader(const detail::OffsetEntryReader& store, std::mutex& mutex)
      : store_(store), mutex_(mutex) {}
  std::optional<std::string> get(std::string_view key) const override {
    std::lock_guard lock(mutex_);
    return store_.get(key);
  }
  std::vector<std::string> keys() const override {
    std::lock_guard lock(mutex_);
    return store_.keys();
  }

 private:
  const detail::OffsetEntryReader& store_;
  std::mutex& mutex_;
};

}  // namespace ksink
