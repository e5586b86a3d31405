// The checks of what a destination holds against what was produced, shared by the sink scenarios:
// per partition, which offsets are missing and which are held more than once, as compact ranges
// ("0..4, 7") so a failure names the offsets concerned.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "ksink/testkit/sink_under_test.h"
#include "offset_ranges.h"
#include "sink_harness.h"
#include "sink_probe.h"

namespace ksink::testkit {

// How many copies of each record `held` names.
std::map<RecordId, int> copiesOf(const std::vector<StoredRecord>& held);

enum class Delivery { kAtLeastOnce, kExactlyOnce };

// For each partition of `ends`, every offset below its end (but those in `absent`, which must not
// be held at all) is held at least once, or exactly once; reports each partition's missing,
// doubled and wrongly held offsets through `harness`, saying `when`. Returns true when all held.
bool checkHeld(SinkHarness& harness, const std::vector<StoredRecord>& held, const OffsetMap& ends,
               Delivery delivery, std::string_view when, const std::set<RecordId>& absent = {});

// With exactlyOnce() declared: every record produced held exactly once, and the offsets the task
// stores in the destination equal the produced ends. Does nothing for an at-least-once sink.
void checkExactlyOnceAtEnd(SinkHarness& harness, const std::set<RecordId>& absent = {});

}  // namespace ksink::testkit
