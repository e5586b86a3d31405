// ServiceNotifier: `ksink run` under a systemd unit of Type=notify (systemd's notification
// protocol, sent with libsystemd's sd_notify). It sends
//   READY=1     once `ready` holds — the caller's test: every connector started and the REST
//               listener serves — checked every 100 ms on the notifier's thread;
//   WATCHDOG=1  from then on, every half of WatchdogSec (WATCHDOG_USEC), as long as `alive`
//               holds (it takes the herder's lock: a worker stuck there stops the pings and
//               systemd restarts it);
//   STOPPING=1  when stopping() is called (the first SIGTERM or SIGINT).
// Not under systemd (no NOTIFY_SOCKET), nothing is sent and no thread runs.
//
// Thread-safety: stopping() from any thread; `ready` and `alive` run on the notifier's thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace ksink {

class ServiceNotifier {
 public:
  using Check = std::function<bool()>;

  ServiceNotifier(Check ready, Check alive);
  // Ends the thread (no more pings); sends nothing.
  ~ServiceNotifier();
  ServiceNotifier(const ServiceNotifier&) = delete;
  ServiceNotifier& operator=(const ServiceNotifier&) = delete;

  // STOPPING=1, once; no READY or WATCHDOG after it.
  void stopping();

 private:
  void serve();

  const Check ready_;
  const Check alive_;
  std::chrono::microseconds watchdog_{0};  // half of WATCHDOG_USEC; 0: no watchdog
  std::mutex mutex_;
  std::condition_variable changed_;
  bool stopping_ = false;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace ksink
