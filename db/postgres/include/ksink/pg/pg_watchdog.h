// PgWatchdog: bounds how long one libpq call may wait for the server.
//
// libpq's blocking calls wait for the server in poll() without a timeout, so a server that stops
// answering (a SIGSTOPped backend, a network black hole whose peer still acknowledges) would hold
// the task thread for ever, inside put() or the rebalance callback. While a call is guarded, the
// watchdog's thread waits for its deadline; if the call has not returned by then, it shuts the
// connection's socket down, so the call returns with a broken connection, which the sink treats
// as retriable (reconnect, redeliver). The fd stays open: libpq still owns and closes it.
//
// Thread-safety: guard() is called from the connection's one user thread; the watchdog's own
// thread only calls shutdown(2) on the armed fd. A zero timeout disables it (no thread).
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace ksink::postgres {

class PgWatchdog {
 public:
  using Clock = std::chrono::steady_clock;

  explicit PgWatchdog(std::chrono::milliseconds timeout);
  ~PgWatchdog();
  PgWatchdog(const PgWatchdog&) = delete;
  PgWatchdog& operator=(const PgWatchdog&) = delete;

  // Armed from construction to destruction: one call on the connection whose socket is `fd`.
  // Guards nest: an inner one bounds its own call and, when it ends, gives the outer one its
  // deadline back (it used to disarm the outer call, which then had no bound at all).
  class Guard {
   public:
    Guard(PgWatchdog& watchdog, int fd);
    ~Guard();
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;

   private:
    PgWatchdog& watchdog_;
    bool active_ = false;
    // What was armed when this guard was made, restored when it ends.
    bool outer_armed_ = false;
    int outer_fd_ = -1;
    Clock::time_point outer_deadline_{};
  };

  std::chrono::milliseconds timeout() const { return timeout_; }
  // True once a guarded call was cut off; the connection is then broken for good.
  bool fired() const;

 private:
  void watch();

  const std::chrono::milliseconds timeout_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool stopping_ = false;
  bool armed_ = false;
  bool fired_ = false;
  int fd_ = -1;
  Clock::time_point deadline_{};
  std::thread thread_;  // last: started once the state above exists
};

}  // namespace ksink::postgres
