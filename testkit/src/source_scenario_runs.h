// The source scenarios, one function each (declared here, defined by theme in
// source_resume_scenarios.cpp and source_call_scenarios.cpp); source_scenarios.cpp dispatches to
// them. Each runs on the SourceHarness it is given and reports through it.
#pragma once

#include "source_harness.h"

namespace ksink::testkit {

void runResumesFromCommittedOffsets(SourceHarness& harness);
void runPartitionKeysMatch(SourceHarness& harness);
void runRedeliveryAfterCrash(SourceHarness& harness);
void runWakeupEndsBlockedPoll(SourceHarness& harness);
void runCommitRecordPerAcknowledgement(SourceHarness& harness);

}  // namespace ksink::testkit
