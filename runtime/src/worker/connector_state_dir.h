// ConnectorStateDir: the connectors `ksink run` keeps across restarts (the worker's state.dir):
// one JSON file per connector — {"name","config","state"} with its configuration as submitted
// and its target state (RUNNING, PAUSED, STOPPED), or {"name","deleted":true} — written whole and
// renamed into place, so a crash leaves the last complete record.
//
// Thread-safety: records of different connectors from any thread; one connector's one at a time.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace ksink {

class ConnectorStateDir {
 public:
  struct Entry {
    std::string name;
    bool deleted = false;
    std::map<std::string, std::string> config;
    std::string state;  // RUNNING, PAUSED, STOPPED
  };

  // `dir` empty: nothing is kept, nothing read.
  explicit ConnectorStateDir(std::filesystem::path dir) : dir_(std::move(dir)) {}

  // A failure to write is logged: the change holds until the process stops.
  void keep(const std::string& name, const std::map<std::string, std::string>& config,
            const std::string& state) const;
  void keepDeleted(const std::string& name) const;
  // Every record; one that cannot be read is logged and left out.
  std::vector<Entry> read() const;

 private:
  void write(const std::string& name, const std::string& json) const;

  const std::filesystem::path dir_;
};

}  // namespace ksink
