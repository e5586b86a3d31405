#include "child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace ksink::it {

ChildProcess::ChildProcess(std::vector<std::string> argv, std::filesystem::path log)
    : log_(std::move(log)) {
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    const int fd = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    // The test runner may block signals; the child must see SIGTERM.
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
}

ChildProcess::~ChildProcess() {
  if (running()) {
    ::kill(pid_, SIGCONT);
    ::kill(pid_, SIGKILL);
    wait(std::chrono::seconds(10));
  }
}

void ChildProcess::signal(int sig) {
  if (!status_) ::kill(pid_, sig);
}

std::optional<int> ChildProcess::wait(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!status_) {
    int raw = 0;
    const pid_t r = ::waitpid(pid_, &raw, WNOHANG);
    if (r == pid_) {
      status_ = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return status_;
}

bool ChildProcess::running() {
  return !wait(std::chrono::milliseconds(0)).has_value();
}

std::string ChildProcess::log() const {
  std::ifstream in(log_);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string ChildProcess::errors() const {
  std::ifstream in(log_);
  std::string out, line;
  while (std::getline(in, line))
    if (line.find("] [error] ") != std::string::npos ||
        line.find("] [critical] ") != std::string::npos)
      out += line + '\n';
  return out;
}

}  // namespace ksink::it
