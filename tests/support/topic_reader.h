// Reading a topic back is the test kit's (ksink/testkit/topic_reader.h); these names keep the
// tests' spelling.
#pragma once

#include "ksink/testkit/topic_reader.h"

namespace ksink::test {
using testkit::ConsumedRecord;
using testkit::readCommitted;
using testkit::readPartition;
}  // namespace ksink::test
