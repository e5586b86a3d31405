// What `ksink offsets` needs of Connect's offset bytes for a source connector (KIP-875's shapes):
// the entries a PATCH body asks for, and which stored entries belong to a connector. Both through
// Connect's internal converter (JSON, schemas off), as the tasks' own entries are written. Pure
// apart from the converter each call builds: any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ksink {

// {"offsets":[{"partition":{…},"offset":{…}|null},…]} → (key, value) entries for `connector`, a
// null offset giving a nullopt value (a reset). Throws ConfigException("--set", reason).
std::vector<std::pair<std::string, std::optional<std::string>>> parseSourceOffsets(
    std::string_view connector, std::string_view body);
// The partition's JSON when `key` is ["<connector>",<partition>], else nullopt.
std::optional<std::string> sourcePartitionOf(std::string_view connector, std::string_view key);

}  // namespace ksink
