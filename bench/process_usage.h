// CPU time and peak memory of a process, read from Linux's /proc: for a child that is still
// running (read it before it exits), or for this process (pid = getpid()) around an in-process
// limit, after resetSelfPeakRss().
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "measurement.h"
#include "polling.h"

namespace ksink::bench {

struct ProcessUsage {
  double cpu_s = 0;         // utime + stime, all threads
  int64_t peak_rss_kb = 0;  // VmHWM
};

ProcessUsage usageOf(pid_t pid);
// Linux: writing 5 to clear_refs resets VmHWM, so the next peak is the next case's own.
void resetSelfPeakRss();

// What a process watched from its launch did: `timing` of its rows (or records), its `usage`.
Measurement watchedMeasurement(const std::string& name, int64_t rows, double bytes,
                               const it::ProgressTiming& timing, const ProcessUsage& usage,
                               const std::string& limit);

}  // namespace ksink::bench
