// librdkafka takes timeouts as int milliseconds, and reads a negative one as "wait forever". A
// longer duration (offset.flush.timeout.ms is a long) cast straight to int wraps negative and
// turns a bounded wait into an endless one: every timeout handed to librdkafka goes through here.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace ksink {

inline int rdkafkaTimeoutMs(std::chrono::milliseconds timeout) {
  return static_cast<int>(std::clamp<int64_t>(timeout.count(), 0, INT32_MAX));
}

}  // namespace ksink
