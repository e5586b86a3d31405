#include "service_notifier.h"

#include <spdlog/spdlog.h>
#include <systemd/sd-daemon.h>

#include <cstdint>
#include <cstdlib>

namespace ksink {
namespace {

using namespace std::chrono_literals;

constexpr auto kReadyCheck = 100ms;

void notify(const char* state) {
  const int sent = sd_notify(0, state);
  if (sent < 0) spdlog::warn("systemd notification {} not sent: error {}", state, -sent);
}

}  // namespace

ServiceNotifier::ServiceNotifier(Check ready, Check alive)
    : ready_(std::move(ready)), alive_(std::move(alive)) {
  const char* socket = std::getenv("NOTIFY_SOCKET");
  if (!socket || !*socket) return;
  uint64_t usec = 0;
  if (sd_watchdog_enabled(0, &usec) > 0) watchdog_ = std::chrono::microseconds(usec / 2);
  thread_ = std::thread([this] { serve(); });
}

ServiceNotifier::~ServiceNotifier() {
  {
    std::lock_guard lock(mutex_);
    done_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ServiceNotifier::stopping() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || !thread_.joinable()) return;
    stopping_ = true;
    // Under the lock: the thread sends nothing after this one.
    notify("STOPPING=1");
  }
  changed_.notify_all();
}

void ServiceNotifier::serve() {
  std::unique_lock lock(mutex_);
  while (!done_ && !stopping_) {
    lock.unlock();
    const bool ready = ready_();
    lock.lock();
    if (done_ || stopping_) return;
    if (ready) {
      notify("READY=1");
      spdlog::info("ready: every connector started and the listener serves (told systemd)");
      break;
    }
    changed_.wait_for(lock, kReadyCheck);
  }
  if (watchdog_.count() == 0) return;
  while (!changed_.wait_for(lock, watchdog_, [this] { return done_ || stopping_; })) {
    lock.unlock();
    const bool alive = alive_();
    lock.lock();
    if (done_ || stopping_) return;
    if (alive) notify("WATCHDOG=1");
  }
}

}  // namespace ksink
