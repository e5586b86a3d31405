// SourceTaskWaker: wakes a source task whose poll() waits for data, only between the task's
// start() and stop() (the driver's rule). Any thread wakes; the task's thread says when the task
// started and when it is stopping.
#pragma once

#include <mutex>

#include "source_task_driver.h"

namespace ksink {

class SourceTaskWaker {
 public:
  explicit SourceTaskWaker(detail::SourceTaskDriver& task) : task_(task) {}
  void started() {
    std::lock_guard lock(mutex_);
    started_ = true;
  }
  void stopping() {
    std::lock_guard lock(mutex_);
    stopped_ = true;
  }
  // The task's thread's view: whether start() returned.
  bool hasStarted() const {
    std::lock_guard lock(mutex_);
    return started_;
  }
  void wake() {
    std::lock_guard lock(mutex_);
    if (started_ && !stopped_) task_.wake();
  }

 private:
  detail::SourceTaskDriver& task_;
  mutable std::mutex mutex_;
  bool started_ = false;
  bool stopped_ = false;
};

}  // namespace ksink
