// SignalWatch: `ksink run`'s answer to SIGINT and SIGTERM, on a thread of its own that takes them
// with sigtimedwait (never an async handler) and never blocks on the workers, so it always sees
// the next one. First signal: stop gracefully (`stop_all` on a thread of its own). Second: the
// process leaves, whatever still runs, once `graceful_timeout` has passed since the first.
// Third: it leaves at once. Both exits are kExitFailed.
//
// Thread-safety: made and destroyed on one thread; the callback runs on another.
#pragma once

#include <atomic>
#include <chrono>
#include <csignal>
#include <functional>
#include <thread>

namespace ksink {

class SignalWatch {
 public:
  // Blocks SIGINT and SIGTERM for the process's threads (call it before starting any other) and
  // ignores SIGPIPE: a peer that closed its end (a schema registry's idle connection, a status
  // client) is an error on that write, not the end of the process (cpp-httplib 0.11 writes
  // without MSG_NOSIGNAL).
  static void takeSignals();

  SignalWatch(std::chrono::milliseconds graceful_timeout, std::function<void()> stop_all);
  // Stops watching (the workers ended) and joins the threads.
  ~SignalWatch();
  SignalWatch(const SignalWatch&) = delete;
  SignalWatch& operator=(const SignalWatch&) = delete;

 private:
  void watch();

  const std::chrono::milliseconds graceful_timeout_;
  const std::function<void()> stop_all_;
  std::atomic<bool> done_{false};
  std::thread stopper_;  // the watch thread's; joined after it
  std::thread thread_;
};

}  // namespace ksink
