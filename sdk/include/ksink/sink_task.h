// SinkTask: the class a user subclasses to write a sink (Kafka Connect's SinkTask, same names and
// meanings).
//
// Call order, all on one thread owned by the worker:
//   initialize(ctx) → start(config) → { open(partitions) | put(records) | preCommit(offsets)
//   (→ flush) | close(partitions) }* → final preCommit → close(all) → stop()
// put() is called on every loop iteration, possibly with no records. preCommit() is never called
// after stop(). The worker commits to Kafka only what preCommit() returns, filtered to assigned
// partitions and to offsets already delivered.
//
// Records reach put() converted and transformed by the runtime (SinkRecord::converted()): a record
// that cannot be converted or transformed never reaches the task; the runtime applies
// errors.tolerance, errors.retry.* and the dead-letter queue to it, as Connect's runtime does. A
// task that converts records itself says so with convertsRecords().
//
// Errors: RetriableError from put() → the same batch is redelivered later; an exception from
// flush()/preCommit() → consumption rewinds to the last committed offsets; any other exception →
// the task fails (final preCommit of what was delivered before, close(), stop(), Worker::run()
// rethrows).
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ksink/config.h"
#include "ksink/sink_record.h"
#include "ksink/sink_task_context.h"
#include "ksink/topic_partition.h"

namespace ksink {

class SinkTask {
 public:
  virtual ~SinkTask() = default;

  // Called by the worker before start(); the task reaches the context through context().
  void initialize(SinkTaskContext& context) { context_ = &context; }

  // A RetriableError thrown here (ksink's, beyond Connect, where any failure fails the task) means
  // "not yet": the worker calls start() again after the context's timeout() if the task set one
  // (else one second), until it returns or throws another error — how a sink whose database is down
  // waits for it; the task bounds its tries. The consumer joins the group only once it returned.
  virtual void start(const Config& config) = 0;
  // Partitions newly assigned to this task (never empty). A sink that stores its offsets in the
  // destination loads them here and rewinds with context().offset().
  virtual void open(const std::vector<TopicPartition>& partitions) { (void)partitions; }
  // Records to write. May be empty. The records are valid until put() returns.
  virtual void put(std::span<const SinkRecord> records) = 0;
  // Make everything put() so far for these partitions durable.
  virtual void flush(const OffsetMap& current_offsets) { (void)current_offsets; }
  // Returns the offsets that are safe to commit (next offset to read, per partition). The default
  // flushes and returns `current_offsets`. Return less to commit less; return {} to commit nothing.
  virtual OffsetMap preCommit(const OffsetMap& current_offsets) {
    flush(current_offsets);
    return current_offsets;
  }
  // Partitions taken from this task (rebalance or shutdown). Drop any state held for them.
  virtual void close(const std::vector<TopicPartition>& partitions) { (void)partitions; }
  virtual void stop() = 0;
  virtual std::string version() const { return "unknown"; }
  // true: put() gets the records as consumed (converted() null) and the task converts them itself,
  // with Converter and TransformationChain (the table sinks do, to write PostgreSQL's COPY stream
  // straight from the bytes); it then reports a record it cannot convert to
  // context().errantRecordReporter() and may retry a conversion through
  // context().retryConversion(). Its ConfigDef includes Converter::configDef() (the converter
  // keys with Connect's JSON default) and, to apply `transforms=`, TransformationChain::configDef()
  // — a chain it does not declare is refused at start. Asked before start() (and by `ksink run`
  // and `ksink validate`, of a task made for the question).
  virtual bool convertsRecords() const { return false; }

 protected:
  SinkTaskContext& context() const { return *context_; }

 private:
  SinkTaskContext* context_ = nullptr;
};

// Makes one task of a sink connector (each of its tasks.max tasks is made by one call).
using TaskFactory = std::function<std::unique_ptr<SinkTask>()>;

}  // namespace ksink
