// The benchmark's tables: one row per case, each case beside the limit it is judged against (its
// `limit`) and beside kafka-raw; over several rounds, the median of each figure and the min–max
// spread of the ratio.
#pragma once

#include <string>
#include <vector>

#include "latency.h"
#include "measurement.h"

namespace ksink::bench {

using Round = std::vector<Measurement>;

void printRound(const std::string& title, const Round& round);
void printSummary(const std::vector<Round>& rounds);
void printLatency(const std::vector<LatencyResult>& results);

}  // namespace ksink::bench
