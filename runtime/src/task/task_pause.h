// TaskPause: a task paused by its connector (Connect's PAUSED target state) — asked for from any
// thread, read by the task's loop: a paused sink task pauses every partition it holds (and those
// assigned to it meanwhile) and goes on polling, committing and serving rebalances; a paused
// source task does not call poll() and goes on committing what was sent. /status shows PAUSED for
// a running task that is paused.
//
// Thread-safety: any thread.
#pragma once

#include <atomic>
#include <string>

namespace ksink {

class TaskPause {
 public:
  void pause() { paused_ = true; }
  void resume() { paused_ = false; }
  bool paused() const { return paused_; }
  // The state /status shows for a task in `state`.
  std::string shown(std::string state) const {
    return state == "RUNNING" && paused_ ? "PAUSED" : state;
  }

 private:
  std::atomic<bool> paused_{false};
};

}  // namespace ksink
