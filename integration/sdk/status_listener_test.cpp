// The `listeners` HTTP server of `ksink run` processes: /status of a running source, a listener
// already in use by another process (as with Kafka Connect's REST server, the start fails naming
// it; the process that has it keeps serving), and, over Connect's REST API, a connector whose task
// failed shown FAILED while the process and its other connector run on; the bodies read by Kafka
// Connect 4.1.1's own REST entity classes.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "child_process.h"
#include "command_output.h"
#include "free_port.h"
#include "polling.h"
#include "test_kafka.h"

namespace ksink::it {
namespace {

using namespace std::chrono_literals;

using test::freePort;

class StatusListenerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = freshDir("status-listener");
    port_ = freePort();
    topic_ = uniqueName("status");
    const auto& topic = topic_;
    RealKafka::shared().createTopic(topic, 1);
    std::ofstream(dir_ / "input.txt") << "a\nb\n";
    std::ofstream(dir_ / "source.properties")
        << fmt::format("name=status-source\nconnector.class=FileStreamSource\nfile={}\ntopic={}\n",
                       (dir_ / "input.txt").string(), topic);
  }

  // A process with its own offsets file (so only the listener can be shared), running
  // source.properties and `more` connector files; `listener`: the worker's listener keys (an http
  // listener on port_ when empty).
  std::unique_ptr<ChildProcess> start(const std::string& tag,
                                      const std::vector<std::string>& more = {},
                                      const std::string& listener = "") {
    const auto worker = dir_ / (tag + "-worker.properties");
    std::ofstream(worker) << fmt::format(
        "bootstrap.servers={}\noffset.storage.file.filename={}\noffset.flush.interval.ms=500\n{}\n",
        RealKafka::shared().bootstrap(), (dir_ / (tag + ".offsets")).string(),
        listener.empty() ? fmt::format("listeners=http://127.0.0.1:{}", port_) : listener);
    std::vector<std::string> command{KSINK_BIN, "run", worker.string(),
                                     (dir_ / "source.properties").string()};
    command.insert(command.end(), more.begin(), more.end());
    return std::make_unique<ChildProcess>(command, dir_ / (tag + ".log"));
  }

  // /status's body once a task runs.
  std::string runningStatus(ChildProcess& ksink) {
    httplib::Client client("127.0.0.1", port_);
    std::string body;
    const bool running = waitUntil(
        [&] {
          const auto res = client.Get("/status");
          body = res && res->status == 200 ? res->body : "";
          return body.find(R"("state":"RUNNING")") != std::string::npos;
        },
        30s);
    EXPECT_TRUE(running) << body << "\n" << ksink.log();
    return body;
  }

  std::filesystem::path dir_;
  std::string topic_;
  int port_ = 0;
};

TEST_F(StatusListenerTest, ARunningSourceShowsTypeSourceAndItsClass) {
  auto ksink = start("source");
  const auto body = runningStatus(*ksink);
  EXPECT_NE(body.find(R"("name":"status-source","type":"source","class":"FileStreamSource")"),
            std::string::npos)
      << body;
  EXPECT_EQ(body.find(R"("sink")"), std::string::npos) << "a source is no sink: " << body;
  ksink->signal(SIGTERM);
  EXPECT_EQ(ksink->wait(20s), 0) << ksink->log();
}

TEST_F(StatusListenerTest, ASecondProcessOnAListenerInUseFailsNamingItAndTheFirstKeepsServing) {
  auto first = start("first");
  runningStatus(*first);
  auto second = start("second");
  const auto status = second->wait(30s);
  ASSERT_TRUE(status) << "the second process runs on\n" << second->log();
  EXPECT_NE(*status, 0) << second->log();
  EXPECT_NE(
      second->log().find(fmt::format("listeners: cannot listen on http://127.0.0.1:{}", port_)),
      std::string::npos)
      << second->log();
  EXPECT_NE(second->log().find("in use"), std::string::npos) << second->log();
  EXPECT_TRUE(first->running());
  runningStatus(*first);
  first->signal(SIGTERM);
  EXPECT_EQ(first->wait(20s), 0) << first->log();
}

// Kafka Connect's way, ksink run's default: a task that fails (its records cannot be sent: the
// topic name is not one Kafka takes) is FAILED with its error while the process and its other
// connector run on; SIGTERM still ends the process gracefully.
TEST_F(StatusListenerTest, AFailedTaskIsShownFailedOverTheRestApiWhileTheOtherConnectorRuns) {
  std::ofstream(dir_ / "broken.properties")
      << fmt::format("name=broken\nconnector.class=FileStreamSource\nfile={}\ntopic=not a topic\n",
                     (dir_ / "input.txt").string());
  auto ksink = start("isolated", {(dir_ / "broken.properties").string()});
  httplib::Client client("127.0.0.1", port_);
  std::string broken;
  EXPECT_TRUE(waitUntil(
      [&] {
        const auto res = client.Get("/connectors/broken/status");
        broken = res ? res->body : "";
        return broken.find(R"("state":"FAILED")") != std::string::npos;
      },
      60s))
      << broken << "\n"
      << ksink->log();
  EXPECT_NE(broken.find(R"("trace":)"), std::string::npos) << broken;
  EXPECT_TRUE(ksink->running()) << ksink->log();
  const auto other = client.Get("/connectors/status-source/status");
  ASSERT_TRUE(other);
  EXPECT_NE(other->body.find(R"("tasks":[{"id":0,"state":"RUNNING")"), std::string::npos)
      << other->body;
  ksink->signal(SIGTERM);
  EXPECT_EQ(ksink->wait(20s), 0) << ksink->log();
}

// KIP-875 over the REST API, for a source: its offsets shown, refused a change while it runs,
// reset once stopped — and resumed, it reads its file again from the start.
TEST_F(StatusListenerTest, ASourcesOffsetsAreResetOverTheRestApiWhileItIsStopped) {
  auto ksink = start("offsets");
  runningStatus(*ksink);
  httplib::Client client("127.0.0.1", port_);
  const std::string path = "/connectors/status-source/offsets";
  std::string shown;
  ASSERT_TRUE(waitUntil(
      [&] {
        const auto res = client.Get(path);
        shown = res ? res->body : "";
        return shown.find(R"("offset":{"position":4,)") != std::string::npos;
      },
      30s))
      << shown << "\n"
      << ksink->log();
  EXPECT_NE(
      shown.find(fmt::format(R"("partition":{{"filename":"{}"}})", (dir_ / "input.txt").string())),
      std::string::npos)
      << shown;
  auto refused = client.Delete(path);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 409) << refused->body;

  auto stopped = client.Put("/connectors/status-source/stop", "", "application/json");
  ASSERT_TRUE(stopped);
  EXPECT_EQ(stopped->status, 204);
  auto reset = client.Delete(path);
  ASSERT_TRUE(reset);
  EXPECT_EQ(reset->status, 200) << reset->body;
  EXPECT_EQ(client.Get(path)->body, R"({"offsets":[]})");
  EXPECT_EQ(RealKafka::shared().endOffset({topic_, 0}), 2);
  auto resumed = client.Put("/connectors/status-source/resume", "", "application/json");
  ASSERT_TRUE(resumed);
  EXPECT_EQ(resumed->status, 202);
  EXPECT_TRUE(waitUntil(
      [&] {
        return RealKafka::shared().endOffset({topic_, 0}) == 4;
      },
      30s))
      << "the file read again from its start\n"
      << ksink->log();
  ksink->signal(SIGTERM);
  EXPECT_EQ(ksink->wait(20s), 0) << ksink->log();
}

// TLS and basic authentication on the listener, as a Connect worker file sets them (the user file
// named by ksink's key): the REST API answers the file's users over https only.
TEST_F(StatusListenerTest, AnHttpsListenerWithBasicAuthenticationAnswersItsUsersOnly) {
  const auto key = dir_ / "key.pem", cert = dir_ / "cert.pem", users = dir_ / "users.properties";
  ASSERT_EQ(std::system(fmt::format("openssl req -x509 -newkey ec -pkeyopt "
                                    "ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=127.0.0.1 "
                                    "-addext subjectAltName=IP:127.0.0.1 -keyout {} -out {} "
                                    "2>/dev/null && cat {} >> {}",
                                    key.string(), cert.string(), cert.string(), key.string())
                            .c_str()),
            0);
  std::ofstream(users) << "operator=tls-test-password\n";
  auto ksink =
      start("tls", {},
            fmt::format("listeners=https://127.0.0.1:{}\nlisteners.https.ssl.keystore.location={}\n"
                        "rest.extension.classes=org.apache.kafka.connect.rest.basic.auth.extension."
                        "BasicAuthSecurityRestExtension\nrest.basic.auth.credentials.file={}\n",
                        port_, key.string(), users.string()));
  httplib::SSLClient client("127.0.0.1", port_);
  client.set_ca_cert_path(cert.c_str());
  client.enable_server_certificate_verification(true);
  client.set_basic_auth("operator", "tls-test-password");
  std::string body;
  EXPECT_TRUE(waitUntil(
      [&] {
        const auto res = client.Get("/connectors/status-source/status");
        body = res ? res->body : "";
        return body.find(R"("tasks":[{"id":0,"state":"RUNNING")") != std::string::npos;
      },
      30s))
      << body << "\n"
      << ksink->log();
  client.set_basic_auth("operator", "wrong");
  const auto refused = client.Get("/connectors");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 401);
  EXPECT_EQ(ksink->log().find("tls-test-password"), std::string::npos) << ksink->log();
  ksink->signal(SIGTERM);
  EXPECT_EQ(ksink->wait(20s), 0) << ksink->log();
}

// What a Java client of Connect's REST API reads: every body parsed by Kafka Connect 4.1.1's own
// entity classes with Jackson (integration/compat/ConnectRestEntities.java), failing on a property
// they do not know and on one they write that the body lacks. GET /connector-plugins is left out:
// Connect's PluginInfo cannot read Connect's own answer (it writes "type":"sink", reads SINK).
TEST_F(StatusListenerTest, EveryBodyIsReadByKafkaConnectsOwnEntityClasses) {
  std::ofstream(dir_ / "broken.properties")
      << fmt::format("name=broken\nconnector.class=FileStreamSource\nfile={}\ntopic=not a topic\n",
                     (dir_ / "input.txt").string());
  auto ksink = start("entities", {(dir_ / "broken.properties").string()});
  runningStatus(*ksink);
  httplib::Client client("127.0.0.1", port_);
  ASSERT_TRUE(waitUntil(
      [&] {
        const auto res = client.Get("/connectors/broken/tasks/0/status");
        return res && res->body.find(R"("trace")") != std::string::npos;
      },
      30s))
      << ksink->log();
  const auto validate =
      client.Put("/connector-plugins/FileStreamSource/config/validate",
                 R"({"name":"v","file":"f","topic":"t","tasks.max":"zero"})", "application/json");
  ASSERT_TRUE(validate);
  std::vector<std::pair<std::string, std::string>> bodies{{"ServerInfo", client.Get("/")->body}};
  for (const auto& [entity, path] : std::vector<std::pair<std::string, std::string>>{
           {"ConnectorInfo", "/connectors/status-source"},
           {"ConnectorStateInfo", "/connectors/status-source/status"},
           {"ConnectorStateInfo", "/connectors/broken/status"},
           {"ConnectorStateInfo$TaskState", "/connectors/broken/tasks/0/status"},
           {"List<TaskInfo>", "/connectors/status-source/tasks"},
           {"List<ConfigKeyInfo>", "/connector-plugins/FileStreamSource/config"},
           {"ConnectorOffsets", "/connectors/status-source/offsets"},
           {"ErrorMessage", "/connectors/nobody"},
           {"Map<LoggerLevel>", "/admin/loggers"},
           {"LoggerLevel", "/admin/loggers/root"}}) {
    const auto res = client.Get(path);
    ASSERT_TRUE(res) << path;
    bodies.emplace_back(entity, res->body);
  }
  bodies.emplace_back("ConfigInfos", validate->body);
  EXPECT_EQ(bodies.front().second.find(R"("kafka_cluster_id":null)"), std::string::npos)
      << "the broker's cluster id: " << bodies.front().second;
  ksink->signal(SIGTERM);
  EXPECT_EQ(ksink->wait(20s), 0) << ksink->log();

  // Connect's runtime jars (fetched once, as for the Debezium tests), the checker compiled.
  const auto libs =
      test::scriptOutput(fmt::format("{}/integration/debezium/fetch.sh", KSINK_SOURCE_DIR));
  const auto classpath = libs.substr(0, libs.find('\n')) + "/*";
  const auto classes = dir_ / "classes";
  const auto compiled = test::runCommand(
      fmt::format("javac -cp '{}' -d '{}' '{}/integration/compat/ConnectRestEntities.java'",
                  classpath, classes.string(), KSINK_SOURCE_DIR));
  ASSERT_EQ(compiled.exit_code, 0) << compiled.output;
  std::string args;
  for (size_t i = 0; i < bodies.size(); ++i) {
    const auto file = dir_ / fmt::format("body-{}.json", i);
    std::ofstream(file) << bodies[i].second;
    args += fmt::format(" '{}' '{}'", bodies[i].first, file.string());
  }
  const auto read = test::runCommand(
      fmt::format("java -cp '{}:{}' ConnectRestEntities{}", classpath, classes.string(), args));
  EXPECT_EQ(read.exit_code, 0) << read.output;
  size_t ok = 0;
  for (size_t at = read.output.find("ok "); at != std::string::npos;
       at = read.output.find("\nok ", at + 1))
    ++ok;
  EXPECT_EQ(ok, bodies.size()) << read.output;
}

}  // namespace
}  // namespace ksink::it
