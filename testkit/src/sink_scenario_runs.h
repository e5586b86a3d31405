// The sink scenarios, one function each (declared here, defined by theme in
// sink_delivery_scenarios.cpp, sink_lifecycle_scenarios.cpp and
// sink_kill_scenarios.cpp); sink_scenarios.cpp dispatches to
// them. Each runs on the SinkHarness it is given and reports through it.
#pragma once

#include "sink_harness.h"

namespace ksink::testkit {

void runDeliveredIsDurable(SinkHarness& harness);
void runPreCommitWithinPut(SinkHarness& harness);
void runRetriableRedelivery(SinkHarness& harness);
void runRebalanceAtLeastOnce(SinkHarness& harness);
void runStopWithinGracefulTimeout(SinkHarness& harness);
void runErrantRecordToDlq(SinkHarness& harness);
void runKillPointsExactlyOnce(SinkHarness& harness);

}  // namespace ksink::testkit
