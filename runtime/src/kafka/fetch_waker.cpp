#include "fetch_waker.h"

#include <spdlog/spdlog.h>

namespace ksink {
namespace {

// How long a wake request may wait for the leaders' answer. The answer itself is not used: the
// request's arrival on the broker thread is what counts.
constexpr int kRequestTimeoutMs = 500;

}  // namespace

FetchWaker::FetchWaker(rd_kafka_t* rk) : rk_(rk), thread_([this] { run(); }) {}

FetchWaker::~FetchWaker() {
  stop();
}

void FetchWaker::wake() {
  {
    std::lock_guard lock(mutex_);
    if (pending_ || stopping_) return;
    pending_ = true;
  }
  cv_.notify_one();
}

void FetchWaker::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_one();
  if (thread_.joinable()) thread_.join();
}

uint64_t FetchWaker::requestsSent() const {
  std::lock_guard lock(mutex_);
  return sent_;
}

void FetchWaker::run() {
  while (true) {
    {
      std::unique_lock lock(mutex_);
      cv_.wait(lock, [this] { return pending_ || stopping_; });
      if (stopping_) return;
      pending_ = false;
    }
    rd_kafka_topic_partition_list_t* raw = nullptr;
    if (rd_kafka_assignment(rk_, &raw) || !raw) continue;
    PartitionList partitions(raw);
    if (partitions->cnt == 0) continue;
    for (int i = 0; i < partitions->cnt; ++i)
      partitions->elems[i].offset = RD_KAFKA_OFFSET_END;  // a timestamp of -1: the latest offset
    if (auto err = rd_kafka_offsets_for_times(rk_, partitions.get(), kRequestTimeoutMs))
      spdlog::debug("fetch wake-up request: {}", rd_kafka_err2str(err));
    std::lock_guard lock(mutex_);
    ++sent_;
  }
}

}  // namespace ksink
