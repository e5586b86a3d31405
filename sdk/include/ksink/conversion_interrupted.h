// ConversionInterrupted: what SinkTaskContext::retryConversion() throws when the task stops while
// a conversion waits to be retried. The record is not at fault, so it must neither be skipped nor
// fail the task as a bad record: let it leave put() (it is a RetriableError); the stopping worker
// does not commit the batch, and its records are consumed again next time.
#pragma once

#include "ksink/retriable_error.h"

namespace ksink {

class ConversionInterrupted : public RetriableError {
 public:
  using RetriableError::RetriableError;
};

}  // namespace ksink
