// ConversionError: one record's key or value could not be converted (malformed JSON, a payload that
// does not match its schema, an unsupported type). It is a bad-record error: the sink hands the
// record to the errant record reporter, or fails the task naming the record's coordinates. It is
// never retriable.
#pragma once

#include <stdexcept>
#include <string>

namespace ksink {

class ConversionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace ksink
