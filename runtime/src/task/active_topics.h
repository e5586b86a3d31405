// ActiveTopics: the topics a task has used (Kafka Connect's KIP-558 "active topics": a sink's
// topics it consumed records of, a source's topics it produced to), each with when it was last
// used, so that a reset of the connector's topics (PUT …/topics/reset) can leave out what was used
// before it. Marked by the task's thread once per batch and topic; read by a status on any thread.
//
// Thread-safety: any thread.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

namespace ksink {

class ActiveTopics {
 public:
  using time_point = std::chrono::steady_clock::time_point;

  // `topic` used now. Cheap when it was the last topic marked.
  void used(std::string_view topic) {
    const auto now = std::chrono::steady_clock::now();
    std::lock_guard lock(mutex_);
    auto it = topics_.find(topic);
    if (it == topics_.end())
      topics_.emplace(std::string(topic), now);
    else
      it->second = now;
  }
  // Each topic used, with when it was last.
  std::map<std::string, time_point, std::less<>> get() const {
    std::lock_guard lock(mutex_);
    return topics_;
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::string, time_point, std::less<>> topics_;
};

}  // namespace ksink
