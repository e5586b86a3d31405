// runCommand: runs a shell command line, returns its exit code and its output (stdout and stderr
// together), for the tests that drive a binary as a user would. scriptOutput: a service script's
// answer (integration/*/start.sh prints an address), its stdout trimmed; throws on failure.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <stdexcept>
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

inline std::string scriptOutput(const std::string& command) {
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) throw std::runtime_error("cannot run " + command);
  char buf[4096];
  while (size_t n = std::fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
  const int rc = ::pclose(pipe);
  if (rc != 0) throw std::runtime_error(command + " failed (" + std::to_string(rc) + "): " + out);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

}  // namespace ksink::test
