// The ksink process's exit codes: a connector that failed, and a configuration refused at start.
#pragma once

namespace ksink {

constexpr int kExitFailed = 1;
constexpr int kExitBadConfig = 2;

}  // namespace ksink
