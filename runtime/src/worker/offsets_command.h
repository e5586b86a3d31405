// `ksink offsets`: a connector's offsets shown and changed from the command line — a sink's
// consumer group (committed, end, lag) and stored offsets, a source's stored offsets as Connect's
// GET/PATCH/DELETE /connectors/<name>/offsets show and take them.
#pragma once

#include <string>
#include <vector>

namespace ksink {

// The exit code of the process: 0, kExitFailed or kExitBadConfig (cli_exit_codes.h).
int offsetsCommand(const std::string& worker_file, const std::string& connector_file, bool reset,
                   const std::vector<std::string>& assignments);

}  // namespace ksink
