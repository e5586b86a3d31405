// ChildProcess: a program the integration tests start, signal (SIGTERM, SIGKILL, SIGSTOP) and wait
// for, with stdout and stderr going to a log file.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ksink::it {

class ChildProcess {
 public:
  ChildProcess(std::vector<std::string> argv, std::filesystem::path log);
  ~ChildProcess();  // SIGKILLs the process if it is still running
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  void signal(int sig);
  // The exit status (exit code, or 128 + signal), or nullopt if still running after `timeout`.
  std::optional<int> wait(std::chrono::milliseconds timeout);
  bool running();
  pid_t pid() const { return pid_; }
  std::string log() const;
  // The log's lines at level error or critical: what to show first when the process failed
  // (a long log is cut in the middle by CI's report).
  std::string errors() const;

 private:
  pid_t pid_ = -1;
  std::optional<int> status_;
  std::filesystem::path log_;
};

}  // namespace ksink::it
