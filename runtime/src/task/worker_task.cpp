#include "worker_task.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace ksink {

WorkerTask::WorkerTask(int id, std::string name, std::string connector, const Clock& clock,
                       std::chrono::milliseconds graceful_timeout,
                       std::chrono::milliseconds stall_after)
    : clock_(clock),
      progress_(clock, stall_after),
      id_(id),
      name_(std::move(name)),
      log_context_{std::move(connector), id >= 0 ? std::optional<int>(id) : std::nullopt},
      graceful_timeout_(graceful_timeout) {}

void WorkerTask::run() {
  const LogContext::Scope context(log_context_);
  std::exception_ptr failure;
  try {
    start();
    if (!stop_.requested()) published_.setState("RUNNING");
    while (!stop_.requested()) iteration();
  } catch (...) {
    failure = std::current_exception();
    spdlog::error("{} failed: {}", name_, describeFailure(failure));
    published_.setState("FAILED", describeFailure(failure));
  }
  if (!stop_.deadline()) stop(clock_.now() + graceful_timeout_);
  failure = finish(failure, *stop_.deadline());
  if (failure)
    published_.setState("FAILED", describeFailure(failure));
  else
    published_.setState("STOPPED");
  spdlog::info("{} stopped", name_);
  if (failure) std::rethrow_exception(failure);
}

void WorkerTask::stop(Clock::time_point deadline) {
  stop_.request(deadline);
  onStop(deadline);
}

void WorkerTask::cancel() {
  stop_.cancel();
  onCancel();
}

void WorkerTask::pause() {
  pause_.pause();
  onPause(true);
}

void WorkerTask::resume() {
  pause_.resume();
  onPause(false);
}

TaskStatus WorkerTask::status() const {
  auto out = published_.status(id_);
  out.state = pause_.shown(out.state);
  if (const auto stall = progress_.stall(); stall && out.state == "RUNNING")
    out.stalled =
        fmt::format("{} for {} s (task.stall.intervals × offset.flush.interval.ms: {} s)",
                    stall->what, stall->for_.count() / 1000, progress_.stallAfter().count() / 1000);
  return out;
}

}  // namespace ksink
