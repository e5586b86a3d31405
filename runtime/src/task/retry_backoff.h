// retryBackoff: how long the worker waits before a retry, for every retry loop it runs (put()
// redelivery after a RetriableError, conversion stages retried under errors.retry.timeout):
// 300 ms, doubling per retry already made, capped by errors.retry.delay.max.ms. Connect draws a
// random wait below the cap once the cap is reached; ksink stays at the cap, so waits are
// predictable.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace ksink {

inline constexpr std::chrono::milliseconds kInitialRetryDelay{300};

// `retries_made`: retries already made of the failing operation (0 before the first one).
inline std::chrono::milliseconds retryBackoff(int retries_made, std::chrono::milliseconds cap) {
  const int shift = std::clamp(retries_made, 0, 20);
  return std::min(kInitialRetryDelay * (int64_t{1} << shift), cap);
}

}  // namespace ksink
