// ConversionUnavailable: a converter could not reach a service it converts with (a schema registry
// that is down, slow or refusing the credentials). The record is not at fault, so it is never a bad
// record: it leaves put() as a RetriableError and the worker delivers the same batch again after a
// backoff (errors.retry.timeout bounds how long; by default it waits as long as it takes). Nothing
// of the batch is committed meanwhile.
#pragma once

#include "ksink/retriable_error.h"

namespace ksink {

class ConversionUnavailable : public RetriableError {
 public:
  using RetriableError::RetriableError;
};

}  // namespace ksink
