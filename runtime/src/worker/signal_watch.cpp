#include "signal_watch.h"

#include <spdlog/spdlog.h>

#include <cstdlib>
#include <ctime>
#include <optional>

#include "cli_exit_codes.h"

namespace ksink {
namespace {

sigset_t stopSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  return signals;
}

[[noreturn]] void exitNow() {
  spdlog::default_logger()->flush();
  std::_Exit(kExitFailed);
}

}  // namespace

void SignalWatch::takeSignals() {
  const sigset_t signals = stopSignals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
}

SignalWatch::SignalWatch(std::chrono::milliseconds graceful_timeout, std::function<void()> stop_all)
    : graceful_timeout_(graceful_timeout),
      stop_all_(std::move(stop_all)),
      thread_([this] { watch(); }) {}

SignalWatch::~SignalWatch() {
  done_ = true;
  thread_.join();
  if (stopper_.joinable()) stopper_.join();
}

void SignalWatch::watch() {
  const sigset_t signals = stopSignals();
  int received = 0;
  std::chrono::steady_clock::time_point first_signal;
  std::optional<std::chrono::steady_clock::time_point> force_at;
  const timespec tick{0, 50'000'000};
  while (!done_) {
    if (force_at && std::chrono::steady_clock::now() >= *force_at) {
      spdlog::error("still stopping {} ms after the first signal; exiting now",
                    graceful_timeout_.count());
      exitNow();
    }
    const int sig = sigtimedwait(&signals, nullptr, &tick);
    if (sig < 0) continue;
    ++received;
    if (received == 1) {
      first_signal = std::chrono::steady_clock::now();
      spdlog::info(
          "signal {}: stopping gracefully (a second signal forces the exit after "
          "task.shutdown.graceful.timeout.ms={})",
          sig, graceful_timeout_.count());
      stopper_ = std::thread(stop_all_);
    } else if (received == 2) {
      force_at = first_signal + graceful_timeout_;
      spdlog::warn("signal {} again: exiting at the latest {} ms after the first one", sig,
                   graceful_timeout_.count());
    } else {
      spdlog::warn("signal {} a third time: exiting at once", sig);
      exitNow();
    }
  }
}

}  // namespace ksink
