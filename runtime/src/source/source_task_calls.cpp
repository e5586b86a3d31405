#include "source_task_calls.h"

#include <spdlog/spdlog.h>

#include "published_status.h"

namespace ksink {

void SourceTaskCalls::make(uint64_t turn, const std::vector<const Due*>& due) {
  std::unique_lock lock(mutex_);
  turn_changed_.wait(lock, [&] { return turn_ == turn; });
  // The next turn comes whatever the task's code does.
  struct NextTurn {
    SourceTaskCalls& calls;
    ~NextTurn() {
      ++calls.turn_;
      calls.turn_changed_.notify_all();
    }
  } next{*this};
  auto call = [&](const char* what, auto&& f) {
    try {
      f();
    } catch (...) {
      spdlog::warn("source task {}: {} threw: {}", name_, what,
                   describeFailure(std::current_exception()));
    }
  };
  for (const Due* d : due) {
    for (const auto& record : d->records)  // no structured binding: clang 14 cannot capture one
      call("commitRecord()", [&] { task_.commitRecord(record.first, record.second); });
    if (d->commit) call("commit()", [&] { task_.commit(); });
  }
}

}  // namespace ksink
