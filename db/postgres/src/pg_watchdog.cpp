#include "ksink/pg/pg_watchdog.h"

#include <sys/socket.h>

namespace ksink::postgres {

PgWatchdog::PgWatchdog(std::chrono::milliseconds timeout) : timeout_(timeout) {
  if (timeout_.count() > 0) thread_ = std::thread([this] { watch(); });
}

PgWatchdog::~PgWatchdog() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

PgWatchdog::Guard::Guard(PgWatchdog& watchdog, int fd) : watchdog_(watchdog) {
  if (!watchdog_.thread_.joinable() || fd < 0) return;
  active_ = true;
  {
    std::lock_guard lock(watchdog_.mutex_);
    outer_armed_ = watchdog_.armed_;
    outer_fd_ = watchdog_.fd_;
    outer_deadline_ = watchdog_.deadline_;
    watchdog_.armed_ = true;
    watchdog_.fd_ = fd;
    watchdog_.deadline_ = Clock::now() + watchdog_.timeout_;
  }
  watchdog_.changed_.notify_all();
}

PgWatchdog::Guard::~Guard() {
  if (!active_) return;
  {
    std::lock_guard lock(watchdog_.mutex_);
    // A call cut off while this guard was armed leaves nothing to restore: the connection is
    // broken, and every call on it returns at once.
    watchdog_.armed_ = outer_armed_ && !watchdog_.fired_;
    watchdog_.fd_ = outer_fd_;
    watchdog_.deadline_ = outer_deadline_;
  }
  watchdog_.changed_.notify_all();
}

bool PgWatchdog::fired() const {
  std::lock_guard lock(mutex_);
  return fired_;
}

void PgWatchdog::watch() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (!armed_) {
      changed_.wait(lock);
      continue;
    }
    const auto deadline = deadline_;
    if (changed_.wait_until(lock, deadline,
                            [&] { return stopping_ || !armed_ || deadline_ != deadline; }))
      continue;
    ::shutdown(fd_, SHUT_RDWR);
    fired_ = true;
    armed_ = false;
  }
}

}  // namespace ksink::postgres
