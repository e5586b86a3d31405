// `ksink run` under systemd's Type=notify, as systemd sees it: a unix datagram socket in
// NOTIFY_SOCKET receives READY=1 only once every connector's task runs and the REST listener
// answers, then WATCHDOG=1 at half of WATCHDOG_USEC, and STOPPING=1 at SIGTERM, nothing after it;
// and the process's log.format=json lines, each one JSON object naming its connector and task.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "child_process.h"
#include "free_port.h"
#include "json_text.h"
#include "test_kafka.h"

namespace ksink::it {
namespace {

using namespace std::chrono_literals;

// systemd's end of the notification socket.
class NotifySocket {
 public:
  explicit NotifySocket(const std::filesystem::path& path) : path_(path) {
    fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    path.string().copy(address.sun_path, sizeof address.sun_path - 1);
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0)
      throw std::runtime_error("cannot bind " + path.string());
    const timeval tick{0, 100'000};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tick, sizeof tick);
  }
  ~NotifySocket() { ::close(fd_); }
  // The next message, or nullopt after `timeout`.
  std::optional<std::string> next(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    char buf[4096];
    while (std::chrono::steady_clock::now() < deadline) {
      const auto n = ::recv(fd_, buf, sizeof buf, 0);
      if (n > 0) return std::string(buf, static_cast<size_t>(n));
    }
    return std::nullopt;
  }

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

class ServiceNotifyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = freshDir("notify");
    port_ = test::freePort();
    std::ofstream(dir_ / "input.txt") << "a\nb\n";
    for (const auto* name : {"first", "second"}) {
      const auto topic = uniqueName(name);
      RealKafka::shared().createTopic(topic, 1);
      std::ofstream(dir_ / fmt::format("{}.properties", name))
          << fmt::format("name={}\nconnector.class=FileStreamSource\nfile={}\ntopic={}\n", name,
                         (dir_ / "input.txt").string(), topic);
    }
  }

  // `ksink run` with both connectors, `worker_extra` in its worker file and `env` in its
  // environment (set for the fork, then taken back).
  std::unique_ptr<ChildProcess> start(const std::string& worker_extra,
                                      const std::vector<std::pair<std::string, std::string>>& env) {
    std::ofstream(dir_ / "worker.properties") << fmt::format(
        "bootstrap.servers={}\noffset.storage.file.filename={}\nlisteners=http://"
        "127.0.0.1:{}\n{}\n",
        RealKafka::shared().bootstrap(), (dir_ / "offsets").string(), port_, worker_extra);
    for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
    auto process = std::make_unique<ChildProcess>(
        std::vector<std::string>{KSINK_BIN, "run", (dir_ / "worker.properties").string(),
                                 (dir_ / "first.properties").string(),
                                 (dir_ / "second.properties").string()},
        dir_ / "ksink.log");
    for (const auto& [k, v] : env) ::unsetenv(k.c_str());
    return process;
  }

  std::filesystem::path dir_;
  int port_ = 0;
};

TEST_F(ServiceNotifyTest, ReadyOnceEveryTaskRunsAndTheListenerAnswersThenWatchdogThenStopping) {
  NotifySocket systemd(dir_ / "notify.sock");
  auto ksink =
      start("", {{"NOTIFY_SOCKET", (dir_ / "notify.sock").string()}, {"WATCHDOG_USEC", "600000"}});
  const auto first = systemd.next(60s);
  ASSERT_EQ(first, "READY=1") << ksink->log();  // nothing before it, no ping either
  // At READY: the listener answers and every connector's task runs.
  httplib::Client client("127.0.0.1", port_);
  client.set_connection_timeout(1s);
  const auto health = client.Get("/health");
  ASSERT_TRUE(health) << ksink->log();
  EXPECT_EQ(health->status, 200) << health->body;
  for (const auto* name : {"first", "second"}) {
    const auto status = client.Get(fmt::format("/connectors/{}/status", name));
    ASSERT_TRUE(status);
    EXPECT_NE(status->body.find(R"("tasks":[{"id":0,"state":"RUNNING")"), std::string::npos)
        << status->body << '\n'
        << ksink->log();
  }
  // Pings every 300 ms (half of WATCHDOG_USEC), while it runs.
  const auto started = std::chrono::steady_clock::now();
  for (int i = 0; i < 3; ++i) EXPECT_EQ(systemd.next(2s), "WATCHDOG=1") << ksink->log();
  EXPECT_GE(std::chrono::steady_clock::now() - started, 600ms);
  ksink->signal(SIGTERM);
  std::vector<std::string> after;
  for (auto m = systemd.next(5s); m && *m != "STOPPING=1"; m = systemd.next(5s))
    after.push_back(*m);  // a ping already on its way
  for (const auto& m : after) EXPECT_EQ(m, "WATCHDOG=1");
  EXPECT_EQ(ksink->wait(30s), 0) << ksink->log();
  EXPECT_EQ(systemd.next(300ms), std::nullopt) << "a message after STOPPING=1";
}

TEST_F(ServiceNotifyTest, JsonLogLinesAreOneObjectEachNamingTheirConnectorAndTask) {
  auto ksink = start("log.format=json", {});
  httplib::Client client("127.0.0.1", port_);
  std::string body;
  for (int i = 0; i < 300 && body.find(R"("state":"RUNNING")") == std::string::npos; ++i) {
    std::this_thread::sleep_for(100ms);
    const auto res = client.Get("/connectors/second/status");
    body = res ? res->body : "";
  }
  ksink->signal(SIGTERM);
  ASSERT_EQ(ksink->wait(30s), 0) << ksink->log();
  std::istringstream lines(ksink->log());
  int lines_of_second_task = 0;
  for (std::string line; std::getline(lines, line);) {
    Value::Object object;
    ASSERT_NO_THROW(object = parseJsonObject(line)) << line;
    std::map<std::string, Value> f(object.begin(), object.end());
    ASSERT_TRUE(f.contains("time") && f.contains("level") && f.contains("message")) << line;
    if (f.contains("task") && f.at("connector").asString() == "second" && f.at("task").asInt() == 0)
      ++lines_of_second_task;
  }
  EXPECT_GT(lines_of_second_task, 0) << ksink->log();
}

}  // namespace
}  // namespace ksink::it
