// SinkRegistry: sinks by name, for the `ksink` command line (`connector.class=<name>`).
//
// Built-in sinks register themselves at start-up; a program that links the SDK registers its own
// before calling runCli(). Registration is not thread-safe: do it before starting workers.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ksink/config_def.h"
#include "ksink/worker.h"

namespace ksink {

class SinkRegistry {
 public:
  struct Entry {
    std::string name;
    TaskFactory factory;
    ConfigDef config_def;  // the sink's own keys, checked by `ksink validate` and at start
    std::string description;
  };

  static SinkRegistry& global();

  // `aliases` are further names for the same sink (e.g. a Java connector class name).
  void add(Entry entry, const std::vector<std::string>& aliases = {});
  const Entry* find(std::string_view name) const;
  std::vector<std::string> names() const;

 private:
  std::map<std::string, Entry, std::less<>> entries_;
  std::map<std::string, std::string, std::less<>> aliases_;
};

}  // namespace ksink
