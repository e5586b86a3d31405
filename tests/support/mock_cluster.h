// The embedded broker of the worker tests is the test kit's (ksink/testkit/mock_cluster.h); these
// names keep the tests' spelling.
#pragma once

#include "ksink/testkit/mock_cluster.h"

namespace ksink::test {
using testkit::ApiKey;
using enum testkit::ApiKey;
using testkit::MockCluster;
using testkit::TestRecord;
}  // namespace ksink::test
