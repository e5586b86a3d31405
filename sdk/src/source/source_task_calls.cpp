#include "source_task_calls.h"

#include <spdlog/spdlog.h>

namespace ksink {

void SourceTaskCalls::make(uint64_t turn, const std::vector<const Due*>& due) {
  {
    std::unique_lock lock(mutex_);
    turn_changed_.wait(lock, [&] { return turn_ == turn; });
    for (const Due* d : due) {
      for (const auto& [record_id, metadata] : d->records) {
        try {
          task_.commitRecord(record_id, metadata);
        } catch (const std::exception& e) {
          spdlog::warn("source task {}: commitRecord() threw: {}", name_, e.what());
        }
      }
      if (!d->commit) continue;
      try {
        task_.commit();
      } catch (const std::exception& e) {
        spdlog::warn("source task {}: commit() threw: {}", name_, e.what());
      }
    }
    ++turn_;
  }
  turn_changed_.notify_all();
}

}  // namespace ksink
