// FetchWaker: wakes librdkafka's broker threads so a consumer with a small prefetch never idles.
//
// librdkafka 2.0.2 stops fetching a partition while the consumer queue holds queued.min.messages
// messages or queued.max.messages.kbytes of payload, and decides again only when its broker
// thread wakes: on a Fetch response, on an operation queued for that broker, or on the thread's
// one-second tick. Consuming from the queue wakes nothing (2.2.0 added fetch.queue.backoff.ms for
// this), so a sink that drains a small prefetch in less than a second waits for the rest of it.
// A request to the partitions' leaders is such an operation: wake() sends a ListOffsets request
// (rd_kafka_offsets_for_times, for the latest offsets) from a thread of its own, since the call
// blocks for its round trip; the broker thread then serves it and decides to fetch again.
//
// Thread-safety: wake() and stop() may be called from any thread. Requests are coalesced: wakes
// that arrive while one is in flight make one more request, not one each.
#pragma once

#include <condition_variable>
#include <mutex>
#include <thread>

#include "rdkafka_handles.h"

namespace ksink {

class FetchWaker {
 public:
  // `rk` must outlive stop() (or the destructor).
  explicit FetchWaker(rd_kafka_t* rk);
  ~FetchWaker();
  FetchWaker(const FetchWaker&) = delete;
  FetchWaker& operator=(const FetchWaker&) = delete;

  void wake();
  // Joins the thread; waits at most for a request in flight (bounded by its timeout).
  void stop();

  uint64_t requestsSent() const;

 private:
  void run();

  rd_kafka_t* rk_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  bool pending_ = false;
  bool stopping_ = false;
  uint64_t sent_ = 0;
  std::thread thread_;
};

}  // namespace ksink
