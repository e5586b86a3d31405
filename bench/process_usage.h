// CPU time and peak memory of a process, read from Linux's /proc: for a child that is still
// running (read it before it exits), or for this process (pid = getpid()) around an in-process
// limit, after resetSelfPeakRss().
#pragma once

#include <sys/types.h>

#include <cstdint>

namespace ksink::bench {

struct ProcessUsage {
  double cpu_s = 0;         // utime + stime, all threads
  int64_t peak_rss_kb = 0;  // VmHWM
};

ProcessUsage usageOf(pid_t pid);
// Linux: writing 5 to clear_refs resets VmHWM, so the next peak is the next case's own.
void resetSelfPeakRss();

}  // namespace ksink::bench
