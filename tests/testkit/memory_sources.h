// The test kit's source subjects: a source that keeps the contract (MemorySource, reading items a
// MemoryUpstream holds) and one deliberately broken source per failure mode the kit's source
// scenarios must catch. The kit's tests run each scenario against its broken source and assert
// the failure it reports.
//
// Each of two streams is one source partition {"stream":"s<n>"}, offset {"seq":<index>}; a record's
// value is "<stream>:<index>".
//
// Thread-safety: a MemoryUpstream is shared by the tasks of every worker of a run and fed by the
// test thread: every access under its mutex.
#pragma once

#include <string>

#include "ksink/testkit/source_under_test.h"

namespace ksink::testkit::selftest {

enum class SourceBreakage {
  kNone,
  kForgetsOffsets,   // reads its committed offsets, then starts over anyway
  kKeyOrderDiffers,  // reads offsets under {"v":1,"stream":…}, polls under {"stream":…,"v":1}
  kKeepsPositionOutside,  // keeps its position beside the source, never in the offsets
  kIgnoresWakeup,         // with nothing to read, poll() sleeps 2.5 s whatever wakeup() says
  kThrowsInCommitRecord,  // commitRecord() throws for every record
};

// A SourceUnderTest named `name` whose tasks are MemorySources broken as `breakage` says, with a
// fresh MemoryUpstream per run.
SourceUnderTest memorySource(const std::string& name,
                             SourceBreakage breakage = SourceBreakage::kNone);

}  // namespace ksink::testkit::selftest
