// runCommand: runs a shell command line, returns its exit code and its output (stdout and stderr
// together), for the tests that drive a binary as a user would.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace ksink::test {

struct CommandResult {
  int exit_code;  // -1 when the command did not exit normally
  std::string output;
};

inline CommandResult runCommand(const std::string& command) {
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  std::string out;
  char buf[4096];
  while (size_t n = std::fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
  const int status = ::pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

}  // namespace ksink::test
