// LogContext: which connector and task the running thread works for, so that every log line it
// writes names them (Kafka Connect's `connector.context` MDC: "[my-sink|task-0] "). The task
// lifecycle (WorkerTask::run) sets it where a task's thread starts, the herder where a
// connector's thread starts; a thread a task starts for itself takes its creator's context with
// current() and a Scope. The log formatter (worker/log_format.h) reads it.
//
// Thread-safety: the context is the calling thread's own (thread-local); nothing is shared.
#pragma once

#include <optional>
#include <string>

namespace ksink {

struct LogContext {
  std::string connector;    // empty: the line belongs to no connector
  std::optional<int> task;  // none: the connector's own thread (Connect's "worker" scope)

  // Connect's tag, "[my-sink|task-0] " or "[my-sink|worker] "; empty without a connector.
  std::string tag() const;

  // The calling thread's context (empty when none was set).
  static const LogContext& current();

  // Sets the calling thread's context for the scope's lifetime, then restores the one before.
  class Scope;
};

class LogContext::Scope {
 public:
  explicit Scope(LogContext context);
  ~Scope();
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  LogContext previous_;
};

}  // namespace ksink
