#include "schema_registry_client.h"

#include <fmt/format.h>
#include <httplib.h>
#include <simdjson.h>

#include "ksink/detail/json_string.h"

namespace ksink::avro {
namespace {

constexpr const char* kContentType = "application/vnd.schemaregistry.v1+json";

// A subject as one path segment: everything but unreserved characters percent-encoded.
std::string pathSegment(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const bool unreserved = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                            (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~';
    if (unreserved)
      out += c;
    else
      out += fmt::format("%{:02X}", static_cast<unsigned char>(c));
  }
  return out;
}

std::string schemaBody(const std::string& schema) {
  std::string body = R"({"schema":)";
  detail::appendJsonString(body, schema, true);
  return body + "}";
}

// The registry's JSON: a field of an object, or nullopt when the body is not such an object.
std::optional<int64_t> intField(const std::string& body, std::string_view name) {
  simdjson::ondemand::parser parser;
  const simdjson::padded_string json(body);
  simdjson::ondemand::document doc;
  int64_t value = 0;
  if (parser.iterate(json).get(doc) || doc[name].get_int64().get(value)) return std::nullopt;
  return value;
}

std::optional<std::string> stringField(const std::string& body, std::string_view name) {
  simdjson::ondemand::parser parser;
  const simdjson::padded_string json(body);
  simdjson::ondemand::document doc;
  std::string_view value;
  if (parser.iterate(json).get(doc) || doc[name].get_string().get(value)) return std::nullopt;
  return std::string(value);
}

}  // namespace

struct SchemaRegistryClient::Connection {
  std::string url;                              // as configured, for messages
  std::string base;                             // the path prefix ("/apis/ccompat/v7", or "")
  std::unique_ptr<httplib::ClientImpl> client;  // plain, or httplib::SSLClient
};

SchemaRegistryClient::SchemaRegistryClient(RegistrySettings settings)
    : settings_(std::move(settings)) {
  if (settings_.urls.empty()) throw std::invalid_argument("no schema registry URL");
  if (settings_.client_cert.empty() != settings_.client_key.empty())
    throw std::invalid_argument("a client certificate needs its key, and a key its certificate");
  for (const auto& url : settings_.urls) {
    const auto bad = [&](std::string_view why) {
      return std::invalid_argument(fmt::format("schema registry URL '{}': {}", url, why));
    };
    const auto scheme_end = url.find("://");
    if (scheme_end == std::string::npos) throw bad("no http:// or https://");
    const auto scheme = url.substr(0, scheme_end);
    if (scheme != "http" && scheme != "https") throw bad("only http and https are served");
    const auto path_at = url.find('/', scheme_end + 3);
    const auto authority = url.substr(scheme_end + 3, path_at - (scheme_end + 3));
    if (authority.find('@') != std::string::npos)
      throw bad("user info in the URL (use basic.auth.user.info)");
    std::string host = authority;
    int port = scheme == "https" ? 443 : 80;
    const auto colon = authority.rfind(':');
    const auto bracket = authority.rfind(']');
    if (colon != std::string::npos && (bracket == std::string::npos || colon > bracket)) {
      host = authority.substr(0, colon);
      const auto digits = authority.substr(colon + 1);
      if (digits.empty() || digits.size() > 5 ||
          digits.find_first_not_of("0123456789") != std::string::npos)
        throw bad("the port is not a number");
      port = std::stoi(digits);
      if (port < 1 || port > 65535) throw bad("the port is outside 1-65535");
    }
    if (host.size() > 2 && host.front() == '[' && host.back() == ']')
      host = host.substr(1, host.size() - 2);
    if (host.empty()) throw bad("no host");
    auto c = std::make_unique<Connection>();
    c->url = url;
    c->base = path_at == std::string::npos ? "" : url.substr(path_at);
    while (!c->base.empty() && c->base.back() == '/') c->base.pop_back();
    if (scheme == "https") {
      auto tls = settings_.client_cert.empty()
                     ? std::make_unique<httplib::SSLClient>(host, port)
                     : std::make_unique<httplib::SSLClient>(host, port, settings_.client_cert,
                                                            settings_.client_key);
      tls->enable_server_certificate_verification(true);
      if (!settings_.ca_file.empty()) tls->set_ca_cert_path(settings_.ca_file.c_str());
      c->client = std::move(tls);
    } else {
      c->client = std::make_unique<httplib::ClientImpl>(host, port);
    }
    if (!c->client->is_valid()) throw bad("cannot be used");
    if (settings_.basic_auth)
      c->client->set_basic_auth(settings_.basic_auth->first.c_str(),
                                settings_.basic_auth->second.c_str());
    c->client->set_connection_timeout(settings_.connect_timeout);
    c->client->set_read_timeout(settings_.read_timeout);
    c->client->set_write_timeout(settings_.read_timeout);
    c->client->set_keep_alive(true);
    connections_.push_back(std::move(c));
  }
}

SchemaRegistryClient::~SchemaRegistryClient() = default;

SchemaRegistryClient::Response SchemaRegistryClient::send(const std::string& method,
                                                          const std::string& path,
                                                          const std::string& body) {
  std::string failures;
  for (size_t n = 0; n < connections_.size(); ++n) {
    const size_t at = (preferred_ + n) % connections_.size();
    auto& c = *connections_[at];
    const httplib::Headers headers{{"Accept", kContentType}};
    const auto target = c.base + path;
    const auto request = [&] {
      return method == "GET" ? c.client->Get(target, headers)
                             : c.client->Post(target, headers, body, kContentType);
    };
    auto result = request();
    // A kept-alive connection the server closed meanwhile fails once: ask again on a new one.
    if (!result &&
        (result.error() == httplib::Error::Read || result.error() == httplib::Error::Write))
      result = request();
    if (!result && (result.error() == httplib::Error::SSLLoadingCerts ||
                    result.error() == httplib::Error::SSLServerVerification))
      throw RegistryError(
          RegistryError::Kind::kMisconfigured, 0, 0,
          fmt::format("schema registry {}: TLS: {}", c.url, httplib::to_string(result.error())));
    if (!result) {
      failures += fmt::format("{}{}: {}", failures.empty() ? "" : "; ", c.url,
                              httplib::to_string(result.error()));
      continue;
    }
    preferred_ = at;
    return {result->status, result->body};
  }
  throw RegistryError(
      RegistryError::Kind::kUnavailable, 0, 0,
      fmt::format("schema registry unreachable ({} {}): {}", method, path, failures));
}

SchemaRegistryClient::Response SchemaRegistryClient::checked(Response r, const std::string& what) {
  if (r.status >= 200 && r.status < 300) return r;
  using Kind = RegistryError::Kind;
  const int code = static_cast<int>(intField(r.body, "error_code").value_or(0));
  const auto message = stringField(r.body, "message").value_or(r.body.substr(0, 500));
  // Only a schema the registry finds invalid (422 with 42201 invalid schema, 42202 invalid
  // version) or incompatible (409) is about the record; any other refusal (a registry in
  // read-only or import mode, a proxy's 400 or 413) is the set-up's.
  Kind kind = Kind::kMisconfigured;
  if (r.status == 422 && (code == 42201 || code == 42202))
    kind = Kind::kInvalid;
  else if (r.status == 404)
    // Only the registry's own "no such id / subject / version" is about the record; a 404 of
    // anything else is a URL that does not lead to a registry's API.
    kind = code > 40400 && code < 40500 ? Kind::kNotFound : Kind::kMisconfigured;
  else if (r.status == 409)
    kind = Kind::kIncompatible;
  else if (r.status == 401 || r.status == 403 || (r.status >= 300 && r.status < 400))
    kind = Kind::kMisconfigured;
  else if (r.status == 408 || r.status == 429 || r.status >= 500)
    kind = Kind::kUnavailable;
  throw RegistryError(kind, r.status, code,
                      fmt::format("schema registry: {}: HTTP {}{}: {}", what, r.status,
                                  code ? fmt::format(" (error_code {})", code) : "", message));
}

std::shared_ptr<const std::string> SchemaRegistryClient::schemaById(int32_t id) {
  if (auto it = by_id_.find(id); it != by_id_.end()) return it->second;
  const auto what = fmt::format("schema id {}", id);
  const auto r = checked(send("GET", fmt::format("/schemas/ids/{}", id), ""), what);
  auto schema = stringField(r.body, "schema");
  if (!schema)
    throw RegistryError(RegistryError::Kind::kUnavailable, r.status, 0,
                        fmt::format("schema registry: {}: no schema in the answer", what));
  auto shared = std::make_shared<const std::string>(std::move(*schema));
  while (!id_order_.empty() && id_order_.size() >= settings_.cache_capacity) {
    by_id_.erase(id_order_.front());
    id_order_.pop_front();
  }
  by_id_.emplace(id, shared);
  id_order_.push_back(id);
  return shared;
}

int32_t SchemaRegistryClient::registerSchema(const std::string& subject,
                                             const std::string& schema) {
  auto key = std::make_pair(subject, schema);
  if (auto it = registered_.find(key); it != registered_.end()) return it->second;
  const auto what = fmt::format("registering a schema under subject '{}'", subject);
  Response r;
  try {
    r = checked(send("POST", fmt::format("/subjects/{}/versions", pathSegment(subject)),
                     schemaBody(schema)),
                what);
  } catch (const RegistryError& e) {
    // A 409 may be a race, not an incompatible schema: Apicurio answers "already exists" when
    // another registration of it (one of ours that timed out, say) created it meanwhile. If the
    // subject now has this schema, that is the answer.
    if (e.kind() != RegistryError::Kind::kIncompatible) throw;
    const auto found = lookup(subject, schema);
    if (!found) throw;
    r.body = fmt::format(R"({{"id":{}}})", found->id);
  }
  const auto id = intField(r.body, "id");
  if (!id)
    throw RegistryError(RegistryError::Kind::kUnavailable, r.status, 0,
                        fmt::format("schema registry: {}: no id in the answer", what));
  while (!registered_order_.empty() && registered_order_.size() >= settings_.cache_capacity) {
    registered_.erase(registered_order_.front());
    registered_order_.pop_front();
  }
  registered_.emplace(key, static_cast<int32_t>(*id));
  registered_order_.push_back(std::move(key));
  return static_cast<int32_t>(*id);
}

std::optional<SchemaRegistryClient::Registered> SchemaRegistryClient::lookup(
    const std::string& subject, const std::string& schema) {
  const auto r =
      send("POST", fmt::format("/subjects/{}", pathSegment(subject)), schemaBody(schema));
  const auto code = intField(r.body, "error_code").value_or(0);
  if (r.status == 404 && code > 40400 && code < 40500) return std::nullopt;
  checked(r, fmt::format("looking a schema up under subject '{}'", subject));
  const auto id = intField(r.body, "id"), version = intField(r.body, "version");
  if (!id || !version)
    throw RegistryError(RegistryError::Kind::kUnavailable, r.status, 0,
                        "schema registry: a lookup's answer has no id or version");
  return Registered{static_cast<int32_t>(*id), static_cast<int32_t>(*version)};
}

std::pair<int32_t, std::string> SchemaRegistryClient::latest(const std::string& subject) {
  const auto what = fmt::format("the latest version of subject '{}'", subject);
  const auto& r = checked(
      send("GET", fmt::format("/subjects/{}/versions/latest", pathSegment(subject)), ""), what);
  const auto id = intField(r.body, "id");
  auto schema = stringField(r.body, "schema");
  if (!id || !schema)
    throw RegistryError(RegistryError::Kind::kUnavailable, r.status, 0,
                        fmt::format("schema registry: {}: no id or schema in the answer", what));
  return {static_cast<int32_t>(*id), std::move(*schema)};
}

}  // namespace ksink::avro
