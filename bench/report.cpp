#include "report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

namespace ksink::bench {
namespace {

constexpr const char* kKafkaLimit = "kafka-raw";

const Measurement* find(const Round& round, const std::string& name) {
  for (const auto& m : round)
    if (m.name == name) return &m;
  return nullptr;
}

std::optional<double> ratio(const Round& round, const Measurement& m, const std::string& limit) {
  const auto* l = find(round, limit);
  if (limit.empty() || !l || l == &m || l->steadyRate() <= 0) return std::nullopt;
  return m.steadyRate() / l->steadyRate();
}

std::string ratioText(std::optional<double> r) {
  return r ? fmt::format("{:.2f}", *r) : "-";
}

void printHeader() {
  fmt::print("{:<40}{:>12}{:>12}{:>9}{:>8}{:>9}{:>9}{:>26}{:>10}\n", "case", "rows/s", "steady",
             "MB/s", "CPU s", "RSS MiB", "1st row", "vs limit", "vs kafka");
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

void printRound(const std::string& title, const Round& round) {
  fmt::print("\n{}\n", title);
  printHeader();
  for (const auto& m : round) {
    const auto vs_limit = ratio(round, m, m.limit);
    fmt::print("{:<40}{:>12.0f}{:>12.0f}{:>9.1f}{:>8.2f}{:>9}{:>9}{:>26}{:>10}\n", m.name,
               m.launchRate(), m.steadyRate(), m.megabytesPerSecond(), m.cpu_s,
               m.peak_rss_kb / 1024, m.to_first_s < 0 ? "-" : fmt::format("{:.2f}s", m.to_first_s),
               vs_limit ? fmt::format("{:.2f} {}", *vs_limit, m.limit) : "-",
               ratioText(ratio(round, m, m.name == kKafkaLimit ? "" : kKafkaLimit)));
  }
}

// Each figure is the median over the rounds of that case's figure; ratios are per round (against
// that round's limit), then the median, with their min–max.
void printSummary(const std::vector<Round>& rounds) {
  if (rounds.size() < 2) return;
  fmt::print("\nmedian of {} rounds (ratio: median, min-max)\n", rounds.size());
  printHeader();
  for (const auto& first : rounds.front()) {
    std::vector<double> launch, steady, mbs, cpu, to_first, ratios, kafka_ratios;
    int64_t rss = 0;
    for (const auto& round : rounds) {
      const auto* m = find(round, first.name);
      if (!m) continue;
      launch.push_back(m->launchRate());
      steady.push_back(m->steadyRate());
      mbs.push_back(m->megabytesPerSecond());
      cpu.push_back(m->cpu_s);
      to_first.push_back(m->to_first_s);
      rss = std::max(rss, m->peak_rss_kb);
      if (auto r = ratio(round, *m, m->limit)) ratios.push_back(*r);
      if (auto r = ratio(round, *m, m->name == kKafkaLimit ? "" : kKafkaLimit))
        kafka_ratios.push_back(*r);
    }
    const auto [lo, hi] = std::minmax_element(ratios.begin(), ratios.end());
    fmt::print(
        "{:<40}{:>12.0f}{:>12.0f}{:>9.1f}{:>8.2f}{:>9}{:>9}{:>26}{:>10}\n", first.name,
        median(launch), median(steady), median(mbs), median(cpu), rss / 1024,
        median(to_first) < 0 ? "-" : fmt::format("{:.2f}s", median(to_first)),
        ratios.empty() ? "-" : fmt::format("{:.2f} ({:.2f}-{:.2f})", median(ratios), *lo, *hi),
        kafka_ratios.empty() ? "-" : fmt::format("{:.2f}", median(kafka_ratios)));
  }
}

void printLatency(const std::vector<LatencyResult>& results) {
  if (results.empty()) return;
  fmt::print("\n{:<40}{:>10}{:>10}{:>10}{:>10}\n", "latency (commit seen - produced)", "rows",
             "p50 ms", "p99 ms", "max ms");
  for (const auto& r : results)
    fmt::print("{:<40}{:>10}{:>10.1f}{:>10.1f}{:>10.1f}\n", r.name, r.samples, r.p50_ms, r.p99_ms,
               r.max_ms);
}

}  // namespace ksink::bench
