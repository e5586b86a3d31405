// RetriableError: what a SinkTask throws for a failure that may go away by itself (lost connection,
// serialization failure, lock timeout).
//
// Thrown from put(): the worker pauses consumption, waits (context().timeout() if the task set one,
// else an exponential backoff capped by errors.retry.delay.max.ms) and calls put() again with
// exactly the same batch. Nothing of that batch is committed until a put() of it returns normally.
// Any other exception from a task method is fatal for the task.
#pragma once

#include <stdexcept>

namespace ksink {

class RetriableError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace ksink
