#include "connect_standalone.h"

#include <fmt/format.h>

#include <chrono>
#include <stdexcept>

#include "child_process.h"
#include "test_kafka.h"

namespace ksink::it {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

const std::string& connectFilePlugins() {
  static const std::string plugins = [] {
    ChildProcess fetch(
        {fmt::format("{}/integration/debezium/fetch_connect_file.sh", KSINK_SOURCE_DIR)},
        freshDir("fetch-connect-file") / "fetch.log");
    if (fetch.wait(5min) != 0) throw std::runtime_error("fetch_connect_file.sh: " + fetch.log());
    auto log = fetch.log();
    while (!log.empty() && (log.back() == '\n')) log.pop_back();
    // The last line is the directory (mvn may leave colour codes in front of it on stderr).
    const auto last = log.substr(log.rfind('\n') + 1);
    return last.substr(last.find('/'));
  }();
  return plugins;
}

void connectScript(const std::string& script, const fs::path& workdir,
                   const std::vector<std::string>& args, const std::vector<std::string>& env) {
  std::vector<std::string> argv{"/usr/bin/env",
                                "KSINK_CONNECT_PLUGIN_PATH=" + connectFilePlugins()};
  argv.insert(argv.end(), env.begin(), env.end());
  argv.push_back(fmt::format("{}/integration/debezium/{}", KSINK_SOURCE_DIR, script));
  argv.push_back(workdir.string());
  argv.insert(argv.end(), args.begin(), args.end());
  fs::create_directories(workdir);
  const auto log = workdir / (script + ".log");
  fs::remove(log);
  ChildProcess p(argv, log);
  const auto status = p.wait(script == "start.sh" ? 6min : 1min);
  if (status != 0) throw std::runtime_error(script + ": " + p.log());
}

}  // namespace ksink::it
