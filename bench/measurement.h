// Measurement: what one case of a benchmark measured, in the units the tables print. Plain data,
// filled by the case that ran (a limit in-process, or a ksink or peer process watched from here).
#pragma once

#include <cstdint>
#include <string>

namespace ksink::bench {

struct Measurement {
  std::string name;
  int64_t rows = 0;         // rows (records) the case moved
  double bytes = 0;         // input bytes it moved: Kafka values, or the COPY stream, or the row
  double to_first_s = -1;   // launch (or subscribe) to the first row seen; < 0: not applicable
  double total_s = 0;       // launch to the last row
  double steady_s = 0;      // first row to the last row
  int64_t steady_rows = 0;  // rows seen within [first, last]
  double cpu_s = 0;         // user + sys of the measured process
  int64_t peak_rss_kb = 0;  // VmHWM of the measured process
  std::string limit;        // the limit it is judged against; empty for a limit itself

  double launchRate() const { return total_s > 0 ? static_cast<double>(rows) / total_s : 0; }
  double steadyRate() const {
    return steady_s > 0 ? static_cast<double>(steady_rows) / steady_s : launchRate();
  }
  double megabytesPerSecond() const { return total_s > 0 ? bytes / total_s / 1e6 : 0; }
};

}  // namespace ksink::bench
