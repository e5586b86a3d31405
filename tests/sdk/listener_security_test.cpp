// The REST listener's TLS and basic authentication (ListenerSecurity, StatusServer), from the
// worker's keys as Connect names them: an https listener serving the keystore's certificate (PEM
// and PKCS12 stores), a client certificate required, the users of the credentials file, and each
// refusal naming its key. Certificates are made by the openssl command for each test.
#include "listener_security.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "ksink/config_exception.h"
#include "status_server.h"

namespace ksink {
namespace {

namespace fs = std::filesystem;

class ListenerSecurityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ksink-tls-" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    // The server's certificate, for 127.0.0.1, with its key in one PEM file; the same in PKCS12.
    makeCertificate("server");
    std::ofstream(path("server-store.pem"))
        << read(path("server-key.pem")) << read(path("server-cert.pem"));
    shell(fmt::format("openssl pkcs12 -export -in {} -inkey {} -out {} -passout pass:store-secret",
                      path("server-cert.pem"), path("server-key.pem"), path("server.p12")));
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string read(const std::string& file) {
    std::ifstream in(file);
    return {std::istreambuf_iterator<char>(in), {}};
  }
  static void shell(const std::string& command) {
    ASSERT_EQ(std::system((command + " 2>/dev/null").c_str()), 0) << command;
  }
  void makeCertificate(const std::string& name) {
    shell(fmt::format(
        "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj "
        "/CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 -keyout {} -out {}",
        path(name + "-key.pem"), path(name + "-cert.pem")));
  }

  // A listener on a free port with `worker`'s security, serving /status.
  std::unique_ptr<StatusServer> serve(const std::map<std::string, std::string>& worker,
                                      bool https = true) {
    return std::make_unique<StatusServer>(
        https ? "https://127.0.0.1:0" : "http://127.0.0.1:0",
        [] { return std::vector<ConnectorStatus>{}; }, StatusServer::Routes{},
        ListenerSecurity::parse(worker, https));
  }
  std::unique_ptr<httplib::SSLClient> client(int port) {
    auto c = std::make_unique<httplib::SSLClient>("127.0.0.1", port);
    c->set_ca_cert_path(path("server-cert.pem").c_str());
    c->enable_server_certificate_verification(true);
    return c;
  }
  // The problems ListenerSecurity::parse() finds, as "key: reason" lines.
  static std::string refused(const std::map<std::string, std::string>& worker, bool https) {
    try {
      ListenerSecurity::parse(worker, https);
    } catch (const ConfigException& e) {
      std::string out;
      for (const auto& p : e.problems()) out += p.key + ": " + p.reason + "\n";
      return out;
    }
    return "";
  }

  fs::path dir_;
};

TEST_F(ListenerSecurityTest, AnHttpsListenerServesTheKeystoresCertificateFromPemAndPkcs12) {
  for (const auto& worker : std::vector<std::map<std::string, std::string>>{
           {{"listeners.https.ssl.keystore.location", path("server-store.pem")}},
           {{"listeners.https.ssl.keystore.location", path("server.p12")},
            {"listeners.https.ssl.keystore.type", "PKCS12"},
            {"listeners.https.ssl.keystore.password", "store-secret"}},
           // Without any listeners.https.* key the worker's own ssl.* apply, as in Connect; the
           // type is found from the file.
           {{"ssl.keystore.location", path("server.p12")},
            {"ssl.keystore.password", "store-secret"}}}) {
    auto server = serve(worker);
    const auto res = client(server->port())->Get("/status");
    ASSERT_TRUE(res) << httplib::to_string(res.error()) << " with " << worker.begin()->second;
    EXPECT_EQ(res->status, 200);
    EXPECT_EQ(res->body, R"({"connectors":[]})");
    httplib::Client plain("127.0.0.1", server->port());
    const auto refused_plain = plain.Get("/status");
    EXPECT_TRUE(!refused_plain || refused_plain->status != 200) << "plain HTTP is not served";
  }
}

TEST_F(ListenerSecurityTest, ARequiredClientCertificateIsOneTheTruststoreSigned) {
  makeCertificate("client");
  auto server = serve({{"listeners.https.ssl.keystore.location", path("server-store.pem")},
                       {"listeners.https.ssl.client.auth", "required"},
                       {"listeners.https.ssl.truststore.location", path("client-cert.pem")}});
  const auto without = client(server->port())->Get("/status");
  EXPECT_TRUE(!without || without->status != 200) << "served without a client certificate";
  httplib::SSLClient with("127.0.0.1", server->port(), path("client-cert.pem"),
                          path("client-key.pem"));
  with.set_ca_cert_path(path("server-cert.pem").c_str());
  with.enable_server_certificate_verification(true);
  const auto res = with.Get("/status");
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  EXPECT_EQ(res->status, 200);
}

TEST_F(ListenerSecurityTest, EveryRequestMustCarryAUserOfTheCredentialsFile) {
  std::ofstream(path("users.properties")) << "# Connect's PropertyFileLoginModule file\n"
                                             "admin: s3cret\nviewer=other\n";
  auto server =
      serve({{"rest.extension.classes",
              "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension"},
             {"rest.basic.auth.credentials.file", path("users.properties")}},
            /*https=*/false);
  httplib::Client http("127.0.0.1", server->port());
  auto res = http.Get("/status");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 401);
  EXPECT_EQ(res->get_header_value("WWW-Authenticate"), R"(Basic realm="ksink")");
  EXPECT_NE(res->body.find(R"("error_code":401)"), std::string::npos) << res->body;
  http.set_basic_auth("admin", "wrong");
  res = http.Get("/metrics");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 401);
  http.set_basic_auth("admin", "s3cre");  // a prefix of the password
  EXPECT_EQ(http.Get("/status")->status, 401);
  http.set_basic_auth("admin", "s3cret");
  EXPECT_EQ(http.Get("/status")->status, 200);
  http.set_basic_auth("viewer", "other");
  EXPECT_EQ(http.Get("/status")->status, 200);
  // The scheme's name in any case (RFC 7617), as curl and Java's clients may send it.
  httplib::Client raw("127.0.0.1", server->port());
  EXPECT_EQ(raw.Get("/status", {{"Authorization", "BASIC YWRtaW46czNjcmV0"}})->status, 200);
  EXPECT_EQ(raw.Get("/status", {{"Authorization", "basic  YWRtaW46czNjcmV0"}})->status, 200);
  EXPECT_EQ(raw.Get("/status", {{"Authorization", "Bearer YWRtaW46czNjcmV0"}})->status, 401);
}

TEST_F(ListenerSecurityTest, WhatCannotBeServedIsRefusedNamingTheKey) {
  EXPECT_NE(refused({}, true).find("listeners.https.ssl.keystore.location: an https:// listener "
                                   "needs a keystore"),
            std::string::npos);
  EXPECT_NE(refused({{"listeners.https.ssl.keystore.location", "k.pem"},
                     {"listeners.https.ssl.enabled.protocols", "TLSv1.3"}},
                    true)
                .find("listeners.https.ssl.enabled.protocols: not served by ksink's listener"),
            std::string::npos);
  EXPECT_NE(refused({{"listeners.https.ssl.keystore.location", "k.pem"},
                     {"listeners.https.ssl.client.auth", "required"}},
                    true)
                .find("listeners.https.ssl.truststore.location: ssl.client.auth=required needs"),
            std::string::npos);
  EXPECT_NE(refused({{"listeners.https.ssl.keystore.location", "k.pem"}}, false)
                .find("listeners: listeners.https.* keys are set but the listener is not"),
            std::string::npos);
  EXPECT_NE(refused({{"rest.extension.classes", "com.example.MyExtension"}}, false)
                .find("rest.extension.classes: com.example.MyExtension: ksink runs no Java REST "
                      "extension"),
            std::string::npos);
  EXPECT_NE(refused({{"rest.extension.classes",
                      "org.apache.kafka.connect.rest.basic.auth.extension."
                      "BasicAuthSecurityRestExtension"}},
                    false)
                .find("rest.basic.auth.credentials.file: BasicAuthSecurityRestExtension is "
                      "listed"),
            std::string::npos);
  EXPECT_NE(refused({{"rest.basic.auth.credentials.file", path("missing.properties")}}, false)
                .find("rest.basic.auth.credentials.file: "),
            std::string::npos);

  // A JKS keystore is refused when the listener starts, with the line that converts it.
  std::ofstream(path("store.jks"), std::ios::binary) << std::string("\xFE\xED\xFE\xED\0\0\0\2", 8);
  try {
    serve({{"listeners.https.ssl.keystore.location", path("store.jks")}});
    FAIL() << "a JKS keystore was taken";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("is a JKS keystore, Java's own format, which ksink "
                                         "cannot read; convert it: keytool -importkeystore"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace ksink
