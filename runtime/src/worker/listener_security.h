// ListenerSecurity: TLS and basic authentication of the REST listener, read from the worker's keys
// as Kafka Connect names them where it has names:
//   listeners=https://host:port
//   listeners.https.ssl.keystore.location / .type (PEM, PKCS12) / .password, …ssl.key.password
//   listeners.https.ssl.client.auth (none, required) with …ssl.truststore.location / .type /
//   .password — without any listeners.https.* key, the worker's own ssl.* keys, as in Connect.
//   rest.extension.classes=org.apache.kafka.connect.rest.basic.auth.extension.
//   BasicAuthSecurityRestExtension, or ksink's rest.basic.auth.credentials.file alone: every
//   request must carry one of the file's users (a properties file, user=password, as Connect's
//   PropertyFileLoginModule reads; ksink has no JAAS, so the file is named by this key).
// Keystores in Java's JKS format cannot be read here: they are refused with the keytool line that
// converts them. The keys are defined with the worker's (WorkerConfig). parse() throws
// ConfigException naming every problem; the files are read when the listener starts (apply()), and
// a file that cannot be read fails the start with its name.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ksink/config_exception.h"

namespace httplib {
class Server;
}

namespace ksink {

struct ListenerSecurity {
  struct Store {
    std::string location;
    std::string type = "PEM";  // PEM or PKCS12
    std::string password;
  };
  struct Tls {
    Store keystore;
    std::string key_password;         // of an encrypted PEM private key
    std::optional<Store> truststore;  // set: client certificates are verified against it
    bool require_client = false;      // ssl.client.auth=required (else requested)
  };

  std::optional<Tls> tls;  // set for an https:// listener
  // user → password; empty: no authentication.
  std::map<std::string, std::string> users;

  // The keys of the worker file, for an `https` listener or not.
  static ListenerSecurity parse(const std::map<std::string, std::string>& worker, bool https);

  // The server for the listener: an https one set up with the stores, or a plain one; with users,
  // requests without one of them are answered 401. Throws std::runtime_error naming a store that
  // cannot be read.
  std::unique_ptr<httplib::Server> makeServer() const;

 private:
  // The users of rest.basic.auth.credentials.file; problems added to `problems`.
  static std::map<std::string, std::string> readUsers(
      const std::map<std::string, std::string>& worker, std::vector<ConfigProblem>& problems);
};

}  // namespace ksink
