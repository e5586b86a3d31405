#include "listener_security.h"

#include <fmt/format.h>
#include <httplib.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/ssl.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <vector>

#include "ksink/config.h"
#include "ksink/config_exception.h"
#include "worker_config.h"

namespace ksink {
namespace {

constexpr std::string_view kHttpsPrefix = "listeners.https.";
constexpr std::string_view kBasicAuthExtension =
    "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension";
constexpr std::string_view kCredentialsKey = "rest.basic.auth.credentials.file";

std::string opensslError() {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "unknown OpenSSL error";
  char text[256];
  ERR_error_string_n(code, text, sizeof text);
  return text;
}

std::string readFile(const std::string& path, std::string_view key) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot read {}", key, path));
  return {std::istreambuf_iterator<char>(in), {}};
}

// PEM, PKCS12 or (refused) JKS, from the type given or else from the file's first bytes.
std::string storeType(const ListenerSecurity::Store& store, const std::string& bytes,
                      std::string_view key) {
  std::string type = store.type;
  if (type.empty())
    type = bytes.starts_with("\xFE\xED\xFE\xED")    ? "JKS"
           : bytes.find("-----BEGIN") != bytes.npos ? "PEM"
                                                    : "PKCS12";
  if (type == "JKS")
    throw std::runtime_error(fmt::format(
        "{}: {} is a JKS keystore, Java's own format, which ksink cannot read; convert it: keytool "
        "-importkeystore -srckeystore {} -destkeystore store.p12 -deststoretype PKCS12",
        key, store.location, store.location));
  return type;
}

struct Pkcs12Contents {
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key{nullptr, EVP_PKEY_free};
  std::unique_ptr<X509, decltype(&X509_free)> cert{nullptr, X509_free};
  std::unique_ptr<STACK_OF(X509), void (*)(STACK_OF(X509)*)> chain{
      nullptr, [](STACK_OF(X509) * s) { sk_X509_pop_free(s, X509_free); }};
};

Pkcs12Contents readPkcs12(const std::string& bytes, const ListenerSecurity::Store& store,
                          std::string_view key) {
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  std::unique_ptr<PKCS12, decltype(&PKCS12_free)> p12(
      d2i_PKCS12(nullptr, &data, static_cast<long>(bytes.size())), PKCS12_free);
  EVP_PKEY* pkey = nullptr;
  X509* cert = nullptr;
  STACK_OF(X509)* chain = nullptr;
  if (!p12 || !PKCS12_parse(p12.get(), store.password.c_str(), &pkey, &cert, &chain))
    throw std::runtime_error(fmt::format("{}: cannot read the PKCS12 store {}: {}", key,
                                         store.location, opensslError()));
  Pkcs12Contents out;
  out.key.reset(pkey);
  out.cert.reset(cert);
  out.chain.reset(chain);
  return out;
}

void useKeystore(SSL_CTX& ctx, const ListenerSecurity::Tls& tls) {
  const auto& store = tls.keystore;
  constexpr std::string_view key = "listeners.https.ssl.keystore.location";
  const auto bytes = readFile(store.location, key);
  if (storeType(store, bytes, key) == "PEM") {
    const std::string& password = tls.key_password.empty() ? store.password : tls.key_password;
    SSL_CTX_set_default_passwd_cb_userdata(&ctx, const_cast<char*>(password.c_str()));
    if (SSL_CTX_use_certificate_chain_file(&ctx, store.location.c_str()) != 1 ||
        SSL_CTX_use_PrivateKey_file(&ctx, store.location.c_str(), SSL_FILETYPE_PEM) != 1)
      throw std::runtime_error(
          fmt::format("{}: {} must hold the private key and the certificate chain in PEM: {}", key,
                      store.location, opensslError()));
    SSL_CTX_set_default_passwd_cb_userdata(&ctx, nullptr);
  } else {
    auto contents = readPkcs12(bytes, store, key);
    if (!contents.key || !contents.cert)
      throw std::runtime_error(
          fmt::format("{}: {} holds no private key and certificate", key, store.location));
    SSL_CTX_use_certificate(&ctx, contents.cert.get());
    SSL_CTX_use_PrivateKey(&ctx, contents.key.get());
    for (int i = 0; contents.chain && i < sk_X509_num(contents.chain.get()); ++i)
      SSL_CTX_add1_chain_cert(&ctx, sk_X509_value(contents.chain.get(), i));
  }
  if (SSL_CTX_check_private_key(&ctx) != 1)
    throw std::runtime_error(fmt::format("{}: the private key of {} is not the certificate's: {}",
                                         key, store.location, opensslError()));
}

void useTruststore(SSL_CTX& ctx, const ListenerSecurity::Store& store, bool required) {
  constexpr std::string_view key = "listeners.https.ssl.truststore.location";
  const auto bytes = readFile(store.location, key);
  if (storeType(store, bytes, key) == "PEM") {
    if (SSL_CTX_load_verify_locations(&ctx, store.location.c_str(), nullptr) != 1)
      throw std::runtime_error(fmt::format("{}: cannot read the certificates of {}: {}", key,
                                           store.location, opensslError()));
  } else {
    auto contents = readPkcs12(bytes, store, key);
    X509_STORE* trusted = SSL_CTX_get_cert_store(&ctx);
    if (contents.cert) X509_STORE_add_cert(trusted, contents.cert.get());
    for (int i = 0; contents.chain && i < sk_X509_num(contents.chain.get()); ++i)
      X509_STORE_add_cert(trusted, sk_X509_value(contents.chain.get(), i));
  }
  SSL_CTX_set_verify(&ctx, SSL_VERIFY_PEER | (required ? SSL_VERIFY_FAIL_IF_NO_PEER_CERT : 0),
                     nullptr);
  // Verified peers and resumed sessions: OpenSSL refuses to resume without a session id context.
  static constexpr unsigned char kContext[] = "ksink-rest";
  SSL_CTX_set_session_id_context(&ctx, kContext, sizeof kContext - 1);
}

// The user of an Authorization: Basic header, when its password is the file's.
bool authorized(const httplib::Request& req, const std::map<std::string, std::string>& users) {
  const auto header = req.get_header_value("Authorization");
  // The scheme's name is case-insensitive (RFC 7617); spaces may follow it.
  constexpr std::string_view kBasic = "basic ";
  if (header.size() < kBasic.size() ||
      !std::equal(kBasic.begin(), kBasic.end(), header.begin(),
                  [](char a, char b) { return a == std::tolower(static_cast<unsigned char>(b)); }))
    return false;
  const auto start = header.find_first_not_of(' ', kBasic.size());
  if (start == std::string::npos) return false;
  const std::string encoded = header.substr(start);
  std::vector<unsigned char> decoded(encoded.size() / 4 * 3 + 3);
  const int n =
      EVP_DecodeBlock(decoded.data(), reinterpret_cast<const unsigned char*>(encoded.data()),
                      static_cast<int>(encoded.size()));
  if (n < 0) return false;
  std::string text(reinterpret_cast<const char*>(decoded.data()), static_cast<size_t>(n));
  while (!text.empty() && text.back() == '\0') text.pop_back();  // the padding's bytes
  const auto colon = text.find(':');
  if (colon == std::string::npos) return false;
  const auto it = users.find(text.substr(0, colon));
  const std::string given = text.substr(colon + 1);
  return it != users.end() && it->second.size() == given.size() &&
         CRYPTO_memcmp(it->second.data(), given.data(), given.size()) == 0;
}

}  // namespace

ListenerSecurity ListenerSecurity::parse(const std::map<std::string, std::string>& worker,
                                         bool https) {
  std::vector<ConfigProblem> problems;
  bool prefixed = false;
  for (const auto& [key, value] : worker) {
    if (!key.starts_with(kHttpsPrefix)) continue;
    prefixed = true;
    if (!WorkerConfig::configDef().find(key))
      problems.push_back({key,
                          "not served by ksink's listener, which takes the keystore, the "
                          "truststore and ssl.client.auth (TLS 1.2 and 1.3 as OpenSSL "
                          "negotiates them)"});
  }
  const std::string prefix = prefixed ? std::string(kHttpsPrefix) : "";
  auto value = [&](std::string_view key) {
    const auto it = worker.find(prefix + std::string(key));
    return it == worker.end() ? std::string() : it->second;
  };
  ListenerSecurity out;
  if (https) {
    Tls tls;
    tls.keystore = {value("ssl.keystore.location"), value("ssl.keystore.type"),
                    value("ssl.keystore.password")};
    tls.key_password = value("ssl.key.password");
    if (tls.keystore.location.empty())
      problems.push_back({std::string(kHttpsPrefix) + "ssl.keystore.location",
                          "an https:// listener needs a keystore with its key and certificate"});
    const std::string client_auth =
        value("ssl.client.auth").empty() ? "none" : value("ssl.client.auth");
    if (client_auth != "none") {
      Store trust{value("ssl.truststore.location"), value("ssl.truststore.type"),
                  value("ssl.truststore.password")};
      if (client_auth != "requested" && client_auth != "required")
        problems.push_back({prefix + "ssl.client.auth", "must be none, requested or required"});
      else if (trust.location.empty())
        problems.push_back(
            {prefix + "ssl.truststore.location",
             "ssl.client.auth=" + client_auth + " needs the certificates that sign the clients'"});
      tls.truststore = std::move(trust);
      tls.require_client = client_auth == "required";
    }
    out.tls = std::move(tls);
  } else if (prefixed) {
    problems.push_back({"listeners",
                        "listeners.https.* keys are set but the listener is not "
                        "https://"});
  }
  out.users = readUsers(worker, problems);
  if (!problems.empty()) throw ConfigException(std::move(problems));
  return out;
}

std::map<std::string, std::string> ListenerSecurity::readUsers(
    const std::map<std::string, std::string>& worker, std::vector<ConfigProblem>& problems) {
  bool basic_auth = false;
  if (const auto it = worker.find("rest.extension.classes"); it != worker.end())
    for (const auto& name : Config({{"list", it->second}}).getList("list")) {
      if (name == kBasicAuthExtension)
        basic_auth = true;
      else
        problems.push_back({"rest.extension.classes",
                            fmt::format("{}: ksink runs no Java REST extension; only Connect's "
                                        "BasicAuthSecurityRestExtension is served, natively",
                                        name)});
    }
  const auto file = worker.find(std::string(kCredentialsKey));
  if (file == worker.end() || file->second.empty()) {
    if (basic_auth)
      problems.push_back({std::string(kCredentialsKey),
                          "BasicAuthSecurityRestExtension is listed: name the file of its users "
                          "here (ksink reads no JAAS configuration)"});
    return {};
  }
  try {
    auto users = Config::readProperties(file->second);
    if (users.empty())
      problems.push_back({std::string(kCredentialsKey), file->second + " lists no user"});
    return users;
  } catch (const std::exception& e) {
    problems.push_back({std::string(kCredentialsKey), e.what()});
    return {};
  }
}

std::unique_ptr<httplib::Server> ListenerSecurity::makeServer() const {
  std::unique_ptr<httplib::Server> server;
  if (tls) {
    std::string failure;
    auto ssl = std::make_unique<httplib::SSLServer>([&](SSL_CTX& ctx) {
      try {
        SSL_CTX_set_min_proto_version(&ctx, TLS1_2_VERSION);
        useKeystore(ctx, *tls);
        if (tls->truststore) useTruststore(ctx, *tls->truststore, tls->require_client);
        return true;
      } catch (const std::exception& e) {
        failure = e.what();
        return false;
      }
    });
    if (!ssl->is_valid())
      throw std::runtime_error(failure.empty() ? "listeners: TLS set-up failed: " + opensslError()
                                               : failure);
    server = std::move(ssl);
  } else {
    server = std::make_unique<httplib::Server>();
  }
  if (!users.empty())
    server->set_pre_routing_handler([users = users](const httplib::Request& req,
                                                    httplib::Response& res) {
      if (authorized(req, users)) return httplib::Server::HandlerResponse::Unhandled;
      res.status = 401;
      res.set_header("WWW-Authenticate", R"(Basic realm="ksink")");
      res.set_content(
          R"({"error_code":401,"message":"Authentication is required: HTTP basic, a user of rest.basic.auth.credentials.file"})",
          "application/json");
      return httplib::Server::HandlerResponse::Handled;
    });
  return server;
}

}  // namespace ksink
