// Keys of a connector's configuration (worker file included) that no definition, claimed prefix,
// transform or converter knows. Kafka Connect ignores them; ksink does not let them pass
// unnoticed, because a misspelt key silently takes its default (`insert.mdoe=upsert` runs
// inserts). A key within two edits of a known one (a transposition is one edit) is refused, with
// the key it was likely meant to be; any other unknown key is warned about, since worker files
// carried over from Kafka Connect hold keys with no meaning here (rest.port, group.id…).
//
// Pure functions; any thread.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ksink/config_def.h"

namespace ksink {

struct UnknownKeys {
  std::vector<ConfigProblem> misspelt;  // refused: "… did you mean `insert.mode`?"
  std::vector<std::string> ignored;     // warned: the key, and that it is ignored
};

UnknownKeys findUnknownKeys(const ConfigDef& def, const std::map<std::string, std::string>& values);

// Edits (insertions, deletions, substitutions, transpositions of neighbours) between a and b.
size_t editDistance(std::string_view a, std::string_view b);

}  // namespace ksink
