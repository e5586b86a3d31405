// SchemaRegistryClient: Confluent's schema registry REST API (`/schemas/ids/{id}`,
// `/subjects/{subject}/versions`), as the Avro converter needs it — Confluent's own registry, or
// any that serves its API (Apicurio under /apis/ccompat/v7, Redpanda, Karapace).
//
// Several URLs (schema.registry.url's comma list) are tried in turn while one cannot be reached.
// Schemas read by id and ids registered are cached (`cache_capacity` each, oldest out first):
// ids are immutable, so a known id never needs the registry again — records keep flowing
// through an outage as long as their schemas were seen.
//
// Failures say what to do next: kNotFound (an id or subject the registry says it does not know —
// error codes 404xx: the record is bad data), kInvalid / kIncompatible (a schema it refuses —
// 422 with 42201/42202, 409 —: the message is the registry's), kUnavailable (cannot reach it,
// timed out, 408/429/5xx: retriable, nothing is wrong with the record), kMisconfigured (401/403,
// a 404 that is not the registry's, a redirect, TLS that does not verify, any other refusal such
// as a read-only registry's: the settings are wrong, not the record; the client does not retry). A
// connection that fails reading or writing is retried once on the same URL (a server that closed an
// idle connection). Not thread-safe: one per converter.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ksink::avro {

struct RegistrySettings {
  std::vector<std::string> urls;                                  // http(s)://host:port[/path]
  std::optional<std::pair<std::string, std::string>> basic_auth;  // user, password
  std::string ca_file;      // PEM bundle to verify an https registry; empty: the system's
  std::string client_cert;  // PEM, with client_key: mutual TLS
  std::string client_key;   // PEM
  std::chrono::milliseconds connect_timeout{60000};  // per request
  std::chrono::milliseconds read_timeout{60000};     // per request: writing and reading
  size_t cache_capacity = 1000;                      // schemas.cache.config
};

class RegistryError : public std::runtime_error {
 public:
  enum class Kind { kNotFound, kInvalid, kIncompatible, kUnavailable, kMisconfigured };
  RegistryError(Kind kind, int http_status, int error_code, const std::string& what)
      : std::runtime_error(what), kind_(kind), http_status_(http_status), error_code_(error_code) {}
  Kind kind() const { return kind_; }
  int httpStatus() const { return http_status_; }  // 0: no response
  int errorCode() const { return error_code_; }    // the registry's error_code (40403…); 0: none
  bool retriable() const { return kind_ == Kind::kUnavailable; }

 private:
  Kind kind_;
  int http_status_;
  int error_code_;
};

class SchemaRegistryClient {
 public:
  // Throws std::invalid_argument for settings it cannot use: a URL without http:// or https://,
  // with user info, without a host or with a port outside 1–65535; a client certificate without
  // its key.
  explicit SchemaRegistryClient(RegistrySettings settings);
  ~SchemaRegistryClient();
  SchemaRegistryClient(const SchemaRegistryClient&) = delete;
  SchemaRegistryClient& operator=(const SchemaRegistryClient&) = delete;

  // The schema text registered under `id`.
  std::shared_ptr<const std::string> schemaById(int32_t id);
  // Registers `schema` (Avro JSON) under `subject` and returns its id; the same text under the
  // same subject is asked once. The registry answers with the existing id for a schema it has; a
  // 409 is looked up before it is taken for incompatibility (a registration that raced ours).
  int32_t registerSchema(const std::string& subject, const std::string& schema);
  // The id and version of `schema` under `subject` without registering it; nullopt if absent.
  struct Registered {
    int32_t id = 0;
    int32_t version = 0;
  };
  std::optional<Registered> lookup(const std::string& subject, const std::string& schema);
  // The subject's latest version: its id and schema text (use.latest.version).
  std::pair<int32_t, std::string> latest(const std::string& subject);

 private:
  struct Response {
    int status = 0;
    std::string body;
  };
  // Sends to each URL in turn until one answers; throws kUnavailable when none does.
  Response send(const std::string& method, const std::string& path, const std::string& body);
  // The response when it is a success; throws the RegistryError its status and body describe.
  static Response checked(Response r, const std::string& what);

  struct Connection;
  RegistrySettings settings_;
  std::vector<std::unique_ptr<Connection>> connections_;
  size_t preferred_ = 0;  // the URL that answered last
  std::map<int32_t, std::shared_ptr<const std::string>> by_id_;
  std::deque<int32_t> id_order_;
  std::map<std::pair<std::string, std::string>, int32_t> registered_;
  std::deque<std::pair<std::string, std::string>> registered_order_;
};

}  // namespace ksink::avro
