// What several source scenarios do alike: a round of items through a worker, and what a task
// asked the OffsetStorageReader.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "source_harness.h"

namespace ksink::testkit {

inline constexpr int kRound = 10;

// Feeds `count` items per stream, runs a worker (offsets in `store`, the run's by default) until
// Kafka acknowledged them, and stops it gracefully: its final commit covers them. Returns the
// worker's first task number, or -1 after a failure.
int runRound(SourceHarness& h, int count, std::string_view what, const std::string& store = "");

// The partitions tasks numbered `first_task` and later asked the reader for.
std::set<std::string> askedPartitions(const std::vector<SourceEvent>& events, int first_task);

// "a, b" of `items`; "nothing" for none.
std::string listed(const std::set<std::string>& items);

}  // namespace ksink::testkit
