// The registry client against local servers that play a registry, for what the real one in the
// integration tests does not do: over HTTPS (it serves plain HTTP without credentials), the
// server's certificate verified against the configured CA, a client certificate (mutual TLS),
// basic auth; a certificate that does not verify and refused credentials are misconfigurations,
// not bad records; the same through the Avro converter's own keys. And a registration answered
// 409 because another one created the schema meanwhile (Apicurio does that) is found, not taken
// for an incompatible schema.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "avro/avro_converter.h"
#include "avro/schema_registry_client.h"
#include "ksink/config.h"
#include "ksink/conversion_unavailable.h"

namespace ksink::avro {
namespace {

namespace fs = std::filesystem;

// A CA, a server certificate for 127.0.0.1 and a client certificate, made with openssl.
class Certificates {
 public:
  Certificates() {
    dir_ = fs::temp_directory_path() / ("ksink-tls-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    const auto d = dir_.string();
    run("openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=test-ca -keyout " + d +
        "/ca.key -out " + d + "/ca.pem");
    for (const std::string who : {"server", "client"}) {
      run("openssl req -newkey rsa:2048 -nodes -subj /CN=" + who + " -keyout " + d + "/" + who +
          ".key -out " + d + "/" + who + ".csr");
      std::ofstream(dir_ / (who + ".ext")) << "subjectAltName=IP:127.0.0.1\n";
      run("openssl x509 -req -in " + d + "/" + who + ".csr -CA " + d + "/ca.pem -CAkey " + d +
          "/ca.key -CAcreateserial -days 2 -extfile " + d + "/" + who + ".ext -out " + d + "/" +
          who + ".pem");
      std::ofstream(dir_ / (who + "-bundle.pem")) << std::ifstream(dir_ / (who + ".pem")).rdbuf()
                                                  << std::ifstream(dir_ / (who + ".key")).rdbuf();
    }
  }
  ~Certificates() { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

 private:
  static void run(const std::string& command) {
    ASSERT_EQ(std::system((command + " >/dev/null 2>&1").c_str()), 0) << command;
  }
  fs::path dir_;
};

// An HTTPS "registry" that wants a client certificate and basic auth me:s3cret, and knows one
// schema: id 1, an Avro string.
class TlsRegistry {
 public:
  explicit TlsRegistry(const Certificates& certs)
      : server_(certs.path("server.pem").c_str(), certs.path("server.key").c_str(),
                certs.path("ca.pem").c_str()) {
    server_.Get("/api/schemas/ids/1", [this](const httplib::Request& req, httplib::Response& res) {
      ++requests_;
      if (req.get_header_value("Authorization") != "Basic bWU6czNjcmV0") {  // me:s3cret
        res.status = 401;
        res.set_content(R"({"error_code":401,"message":"Unauthorized"})", "application/json");
        return;
      }
      res.set_content(R"({"schema":"\"string\""})", "application/vnd.schemaregistry.v1+json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~TlsRegistry() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "https://127.0.0.1:" + std::to_string(port_) + "/api"; }
  int requests() const { return requests_; }

 private:
  httplib::SSLServer server_;
  int port_ = 0;
  std::thread thread_;
  std::atomic<int> requests_{0};
};

RegistrySettings settings(const Certificates& certs, const std::string& url) {
  RegistrySettings s;
  s.urls = {url};
  s.ca_file = certs.path("ca.pem");
  s.client_cert = certs.path("client.pem");
  s.client_key = certs.path("client.key");
  s.basic_auth = std::make_pair("me", "s3cret");
  s.connect_timeout = s.read_timeout = std::chrono::seconds(5);
  return s;
}

RegistryError::Kind failureOf(SchemaRegistryClient& client) {
  try {
    client.schemaById(1);
  } catch (const RegistryError& e) {
    return e.kind();
  }
  ADD_FAILURE() << "the request succeeded";
  return RegistryError::Kind::kNotFound;
}

TEST(SchemaRegistryTlsTest, AVerifiedServerAClientCertificateAndBasicAuthReadTheSchema) {
  const Certificates certs;
  TlsRegistry registry(certs);
  SchemaRegistryClient client(settings(certs, registry.url()));
  EXPECT_EQ(*client.schemaById(1), "\"string\"");
  EXPECT_EQ(registry.requests(), 1);
}

TEST(SchemaRegistryTlsTest, AnUnverifiedServerOrRefusedCredentialsAreMisconfigurations) {
  const Certificates certs;
  TlsRegistry registry(certs);
  auto unverified = settings(certs, registry.url());
  unverified.ca_file = certs.path("client.pem");  // not the CA that signed the server
  SchemaRegistryClient wrong_ca(unverified);
  EXPECT_EQ(failureOf(wrong_ca), RegistryError::Kind::kMisconfigured);
  EXPECT_EQ(registry.requests(), 0);  // nothing was sent to a server that did not verify

  auto refused = settings(certs, registry.url());
  refused.basic_auth = std::make_pair("me", "wrong");
  SchemaRegistryClient wrong_password(refused);
  EXPECT_EQ(failureOf(wrong_password), RegistryError::Kind::kMisconfigured);

  auto anonymous = settings(certs, registry.url());
  anonymous.client_cert.clear();
  anonymous.client_key.clear();
  SchemaRegistryClient no_certificate(anonymous);
  // The server ends the handshake: to the client a connection that fails, retried like an outage.
  EXPECT_EQ(failureOf(no_certificate), RegistryError::Kind::kUnavailable);
  EXPECT_EQ(registry.requests(), 1);  // only the wrong password reached the handler
}

TEST(SchemaRegistryTlsTest, TheConvertersKeysConfigureTlsAndCredentials) {
  const Certificates certs;
  TlsRegistry registry(certs);
  const auto make = [&](const std::string& user_info) {
    return Converter::create(
        Config(std::map<std::string, std::string>{
            {"value.converter", "io.confluent.connect.avro.AvroConverter"},
            {"value.converter.schema.registry.url", registry.url()},
            {"value.converter.basic.auth.credentials.source", "USER_INFO"},
            {"value.converter.basic.auth.user.info", user_info},
            {"value.converter.schema.registry.ssl.truststore.location", certs.path("ca.pem")},
            {"value.converter.schema.registry.ssl.keystore.location",
             certs.path("client-bundle.pem")},
            {"value.converter.http.read.timeout.ms", "5000"}}),
        false);
  };
  const std::string record("\0\0\0\0\x01\x04hi", 8);  // id 1, the string "hi"
  EXPECT_EQ(make("me:s3cret")->toConnectData("t", record).value.asString(), "hi");
  // Credentials the registry refuses hold the record back (retried), never make it a bad record.
  EXPECT_THROW(make("me:nope")->toConnectData("t", record), ConversionUnavailable);
}

TEST(SchemaRegistryLocalTest, A409FromARegistrationThatRacedIsLookedUpNotTakenForIncompatible) {
  // Registrations answer 409; a lookup finds the "raced" schema, not the "incompatible" one.
  httplib::Server server;
  std::atomic<int> lookups{0};
  server.Post(R"(/subjects/([^/]+)/versions)", [](const httplib::Request&, httplib::Response& res) {
    res.status = 409;
    res.set_content(R"({"error_code":409,"message":"An artifact with ID already exists."})",
                    "application/json");
  });
  server.Post(R"(/subjects/([^/]+))", [&](const httplib::Request& req, httplib::Response& res) {
    ++lookups;
    if (req.body.find("raced") == std::string::npos) {
      res.status = 404;
      res.set_content(R"({"error_code":40403,"message":"Schema not found"})", "application/json");
      return;
    }
    res.set_content(R"({"subject":"s","id":7,"version":1,"schema":"x"})", "application/json");
  });
  const int port = server.bind_to_any_port("127.0.0.1");
  std::thread thread([&] { server.listen_after_bind(); });
  while (!server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  RegistrySettings settings;
  settings.urls = {"http://127.0.0.1:" + std::to_string(port)};
  SchemaRegistryClient client(settings);
  EXPECT_EQ(client.registerSchema("s", R"({"type":"string","doc":"raced"})"), 7);
  try {
    client.registerSchema("s", R"({"type":"string","doc":"other"})");
    ADD_FAILURE() << "registered";
  } catch (const RegistryError& e) {
    EXPECT_EQ(e.kind(), RegistryError::Kind::kIncompatible);
  }
  EXPECT_EQ(lookups, 2);
  server.stop();
  thread.join();
}

}  // namespace
}  // namespace ksink::avro
