#include "stage_retry.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "retry_backoff.h"

namespace ksink {

using std::chrono::milliseconds;

StageRetry::StageRetry(milliseconds timeout, milliseconds delay_max, std::atomic<uint64_t>& retries,
                       const Clock& clock)
    : timeout_(timeout), delay_max_(delay_max), retries_(retries), clock_(clock) {}

void StageRetry::run(std::exception_ptr failure, const std::function<void()>& step) {
  const bool forever = timeout_.count() < 0;
  const auto deadline = clock_.now() + (forever ? milliseconds(0) : timeout_);
  for (int retries_made = 0;; ++retries_made) {
    const auto now = clock_.now();
    if (!forever && now >= deadline) std::rethrow_exception(failure);
    auto delay = retryBackoff(retries_made, delay_max_);
    if (!forever) delay = std::min(delay, std::chrono::ceil<milliseconds>(deadline - now));
    std::string what = "?";
    try {
      std::rethrow_exception(failure);
    } catch (const std::exception& e) {
      what = e.what();
    }
    spdlog::warn("retriable error converting a record, retrying in {} ms: {}", delay.count(), what);
    if (!sleep(delay))
      throw Interrupted(fmt::format("task stopping while retrying a conversion: {}", what));
    retries_++;
    try {
      step();
      return;
    } catch (const RetriableError&) {
      failure = std::current_exception();
    }
  }
}

void StageRetry::cancel() {
  {
    std::lock_guard lock(mutex_);
    cancelled_ = true;
  }
  cancelled_changed_.notify_all();
}

bool StageRetry::sleep(milliseconds delay) {
  std::unique_lock lock(mutex_);
  return !clock_.sleepUntil(lock, cancelled_changed_, clock_.now() + delay,
                            [this] { return cancelled_; });
}

}  // namespace ksink
