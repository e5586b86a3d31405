// SourceTask: the class a user subclasses to write a source (Kafka Connect's SourceTask, same
// names and meanings).
//
// Call order: initialize(ctx) → start(config) → poll()* → stop() on the task's own thread;
// meanwhile commitRecord(record, metadata) and commit() mostly on the runtime's service thread, as
// Connect calls them from its producer and committer threads (a task that shares state between
// them and poll() guards it; the runtime never holds a lock of its own while it calls the task, so
// such a guard cannot deadlock with it).
// poll() returns the next records, or none when nothing is ready; it may block a while, but
// should return soon after wakeup() (called from another thread when the task is to stop: unlike
// Connect, ksink tells a task blocked in poll() so it can stop within
// task.shutdown.graceful.timeout.ms). commitRecord(record, metadata) follows each record's
// acknowledgement by Kafka (metadata: where it landed), or its end without one — dropped by a
// transform, or failed under errors.tolerance=all — with nullopt. commit() follows each
// successful (or empty) offset flush: the offsets committed so far are durable.
//
// start()'s configuration is the connector's, with kSourceTaskIdKey ("ksink.task.id") added: which
// of the tasks.max tasks this one is, for a task that takes a share of the connector's work.
//
// Errors: RetriableError from poll() → the worker waits a little and polls again; any other
// exception → the task fails (what Kafka acknowledged is still committed, then stop()).
// Exceptions from commit() and commitRecord() are logged and otherwise ignored.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ksink/config.h"
#include "ksink/record_metadata.h"
#include "ksink/source_record.h"
#include "ksink/source_task_context.h"

namespace ksink {

class SourceTask {
 public:
  virtual ~SourceTask() = default;

  // Called by the worker before start(); the task reaches the context through context().
  void initialize(SourceTaskContext& context) { context_ = &context; }

  virtual void start(const Config& config) = 0;
  virtual std::vector<SourceRecord> poll() = 0;
  // Any thread: the task is stopping; a poll() waiting for data should return now.
  virtual void wakeup() {}
  virtual void commit() {}
  virtual void commitRecord(const SourceRecord& record,
                            const std::optional<RecordMetadata>& metadata) {
    (void)record;
    (void)metadata;
    // The runtime stops keeping records for this call (set on the service thread, read on the
    // task's).
    commit_record_overridden_.store(false, std::memory_order_relaxed);
  }
  virtual void stop() = 0;
  virtual std::string version() const { return "unknown"; }

 protected:
  SourceTaskContext& context() const { return *context_; }

 private:
  friend class SourceTaskAdapter;
  SourceTaskContext* context_ = nullptr;
  std::atomic<bool> commit_record_overridden_{true};  // until the default commitRecord() ran
};

// The key the runtime adds to each source task's configuration: which of the connector's
// tasks.max tasks it is, "0" to "tasks.max - 1" (a source that shares out its work — tables,
// files — takes its share by it, where Connect's connectors split the work in taskConfigs()).
inline constexpr std::string_view kSourceTaskIdKey = "ksink.task.id";

// Makes one task of a source connector (each of its tasks.max tasks is made by one call).
using SourceTaskFactory = std::function<std::unique_ptr<SourceTask>()>;

}  // namespace ksink
