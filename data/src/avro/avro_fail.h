// How every Avro conversion fails: a ConversionError whose message starts with "Avro: " (a bad
// record to errors.tolerance, whichever side of the converter it comes from).
#pragma once

#include <string>

#include "ksink/conversion_error.h"

namespace ksink::avro {

[[noreturn]] inline void fail(const std::string& what) {
  throw ConversionError("Avro: " + what);
}

}  // namespace ksink::avro
