// A case of the differential test (integration/compat/cases/<name>.json): one connector
// configuration and the records it is given, in batches, plus the differences from the Debezium
// JDBC sink that ksink keeps on purpose (each one explained in
// docs/configuration-compatibility.md). The file:
//
//   {
//     "about": "what the case covers",
//     "config": {"insert.mode": "upsert", "primary.key.mode": "record_key", ...},
//     "ksink_config": {...},           // optional: ksink's own keys instead (connector.class too)
//     "topics": ["", "b"],             // optional: the case's topic ("") and more, <topic>_b
//     "setup": ["CREATE TABLE {{topic}} (…)", …],  // optional: SQL run in both schemas first
//     "schemas": {"k": {...}, ...},    // optional: Connect schemas the records name
//     "batches": [                     // produced one after another, each consumed by both
//       [ {"key": {"schema": "k", "payload": {"id": 1}}, "value": null,
//          "topic": "b", "headers": {"h": "x"}, "timestamp": 1700000000000}, ... ],
//       ...
//     ],
//     "connect_uncommitted": [0, 1],    // optional: per batch, its last records an SMT drops,
//                                      // which the Debezium sink never commits
//     "differences": ["<table diff line, the run's prefix left out>", ...]
//   }
//
// A key or value is JSON written as given (a "schema" that is a string names an entry of
// "schemas"), null for none, or "key_text"/"value_text" for bytes that are not JSON. Config values
// may say {{topic}}: the case's topic in this run. Connector name, class, topics and connection
// are the test's.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ksink::it {

struct DifferentialRecord {
  std::string topic;  // the suffix: "" for the case's own topic
  std::optional<std::string> key;
  std::optional<std::string> value;
  std::vector<std::pair<std::string, std::string>> headers;
  std::optional<int64_t> timestamp;
};

struct DifferentialCase {
  std::string name;  // the file's stem
  std::string about;
  std::map<std::string, std::string> config;
  std::map<std::string, std::string> ksink_config;  // empty: ksink runs `config` too
  std::vector<std::string> topics;                  // suffixes, "" first
  std::vector<std::string> setup;                   // SQL, {{topic}} not yet replaced
  std::vector<std::vector<DifferentialRecord>> batches;
  std::vector<int64_t> connect_uncommitted;  // per batch
  std::vector<std::string> differences;

  // The topic a suffix names in a run whose topics start with `prefix`.
  std::string topic(const std::string& prefix, const std::string& suffix = "") const {
    return prefix + name + (suffix.empty() ? "" : "_" + suffix);
  }

  // Throws std::runtime_error naming the file and what is wrong in it.
  static DifferentialCase load(const std::filesystem::path& file);
  // Every *.json of `dir`, by name.
  static std::vector<DifferentialCase> loadAll(const std::filesystem::path& dir);
};

}  // namespace ksink::it
