#include "process_usage.h"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace ksink::bench {
namespace {

// Fields 14 and 15 of /proc/<pid>/stat, in clock ticks; field 2 (comm) may hold spaces, so count
// from the closing parenthesis.
double cpuSeconds(pid_t pid) {
  std::ifstream in(fmt::format("/proc/{}/stat", pid));
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(stat.substr(close + 2));
  std::string field;
  long long utime = 0, stime = 0;
  for (int n = 3; fields >> field; ++n) {
    if (n == 14) utime = std::stoll(field);
    if (n == 15) {
      stime = std::stoll(field);
      break;
    }
  }
  return static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

int64_t peakRssKb(pid_t pid) {
  std::ifstream status(fmt::format("/proc/{}/status", pid));
  for (std::string line; std::getline(status, line);)
    if (line.starts_with("VmHWM:")) return std::stoll(line.substr(6));
  return 0;
}

}  // namespace

ProcessUsage usageOf(pid_t pid) {
  return {cpuSeconds(pid), peakRssKb(pid)};
}

void resetSelfPeakRss() {
  std::ofstream("/proc/self/clear_refs") << "5";
}

Measurement watchedMeasurement(const std::string& name, int64_t rows, double bytes,
                               const it::ProgressTiming& timing, const ProcessUsage& usage,
                               const std::string& limit) {
  return {name,
          rows,
          bytes,
          timing.to_first,
          timing.to_first + timing.seconds,
          timing.seconds,
          timing.units,
          usage.cpu_s,
          usage.peak_rss_kb,
          limit};
}

}  // namespace ksink::bench
