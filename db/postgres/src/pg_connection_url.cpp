#include "ksink/pg/pg_connection_url.h"

#include <fmt/format.h>
#include <libpq-fe.h>

#include <cctype>
#include <regex>
#include <stdexcept>

#include "ksink/config.h"
#include "ksink/detail/config_parse.h"

namespace ksink::postgres {
namespace {

constexpr std::string_view kJdbcPrefix = "jdbc:postgresql:";

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// `what` names the part being decoded; the text itself is never quoted, as it may be a password.
std::string percentDecode(std::string_view s, std::string_view what) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out.push_back(s[i]);
      continue;
    }
    const int hi = i + 2 < s.size() ? hexDigit(s[i + 1]) : -1;
    const int lo = i + 2 < s.size() ? hexDigit(s[i + 2]) : -1;
    if (hi < 0 || lo < 0)
      throw std::invalid_argument(
          fmt::format("bad percent-encoding in {}: '%' must be followed by two hex digits", what));
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return out;
}

// PostgreSQL's names of UTF-8, in any case (UTF8, UTF-8, Unicode).
bool isUtf8(std::string_view name) {
  const auto lower = detail::asciiLower(name);
  return lower == "utf8" || lower == "utf-8" || lower == "unicode";
}

// A value inside libpq's `options` must escape spaces and backslashes.
std::string optionEscape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == ' ' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

// pgjdbc's sslfactory that accepts any server certificate (encryption without verification).
constexpr std::string_view kNonValidatingFactory = "org.postgresql.ssl.NonValidatingFactory";

// pgjdbc's targetServerType values in libpq's target_session_attrs words.
std::string targetSessionAttrs(std::string_view jdbc) {
  if (jdbc == "primary" || jdbc == "master") return "primary";
  if (jdbc == "secondary" || jdbc == "slave") return "standby";
  if (jdbc == "preferSecondary" || jdbc == "preferSlave") return "prefer-standby";
  return "any";
}

// jdbc:postgresql:[//host[:port][,host[:port]]...[/]]database[?k=v&...]
// The hosts and ports of a JDBC URL's authority ("h1:p1,[::1]:p2"), each comma-separated, a
// missing host or port as pgjdbc defaults it.
void parseJdbcHosts(std::string_view authority, const std::string& shown, std::string& hosts,
                    std::string& ports) {
  size_t start = 0;
  while (start <= authority.size()) {
    auto comma = authority.find(',', start);
    if (comma == std::string_view::npos) comma = authority.size();
    std::string_view hp = authority.substr(start, comma - start);
    std::string host, port;
    if (hp.starts_with('[')) {  // [IPv6]:port
      const auto close = hp.find(']');
      if (close == std::string_view::npos)
        throw std::invalid_argument("unterminated '[' in host of " + shown);
      host = hp.substr(1, close - 1);
      if (close + 1 < hp.size() && hp[close + 1] == ':') port = hp.substr(close + 2);
    } else if (auto colon = hp.rfind(':'); colon != std::string_view::npos) {
      host = hp.substr(0, colon);
      port = hp.substr(colon + 1);
    } else {
      host = hp;
    }
    if (host.empty()) host = "localhost";
    if (port.empty()) port = "5432";
    if (port.find_first_not_of("0123456789") != std::string::npos)
      throw std::invalid_argument(fmt::format("bad port '{}' in {}", port, shown));
    hosts += (hosts.empty() ? "" : ",") + host;
    ports += (ports.empty() ? "" : ",") + port;
    start = comma + 1;
  }
}

// A JDBC URL's query parameters as libpq's keywords; those libpq has no use for in `ignored`.
void parseJdbcQuery(std::string_view query, ConnectionParams& out,
                    std::vector<std::string>& ignored) {
  bool ssl = false, sslmode = false, non_validating = false;
  size_t start = 0;
  while (start < query.size()) {
    auto amp = query.find('&', start);
    if (amp == std::string_view::npos) amp = query.size();
    const std::string_view kv = query.substr(start, amp - start);
    start = amp + 1;
    if (kv.empty()) continue;
    const auto eq = kv.find('=');
    const std::string key = percentDecode(kv.substr(0, eq), "a query parameter's name");
    const std::string value =
        eq == std::string_view::npos
            ? ""
            : percentDecode(kv.substr(eq + 1), fmt::format("the value of '{}'", key));
    if (key == "user" || key == "password" || key == "sslcert" || key == "sslkey" ||
        key == "sslrootcert" || key == "sslpassword" || key == "options" || key == "gssencmode" ||
        key == "channel_binding") {
      out.emplace_back(key, value);
    } else if (key == "sslmode") {
      sslmode = true;
      out.emplace_back(key, value);
    } else if (key == "ssl") {
      ssl = value.empty() || value == "true";
    } else if (key == "sslfactory") {
      non_validating = value == kNonValidatingFactory;
      if (!non_validating) ignored.push_back(key);
    } else if (key == "ApplicationName" || key == "applicationName") {
      out.emplace_back("application_name", value);
    } else if (key == "connectTimeout" || key == "loginTimeout") {
      out.emplace_back("connect_timeout", value);
    } else if (key == "currentSchema") {
      out.emplace_back("options", "-c search_path=" + optionEscape(value));
    } else if (key == "targetServerType") {
      out.emplace_back("target_session_attrs", targetSessionAttrs(value));
    } else if (key == "tcpKeepAlive") {
      out.emplace_back("keepalives", value == "false" ? "0" : "1");
    } else {
      ignored.push_back(key);
    }
  }
  // pgjdbc's ssl=true verifies the certificate and the host name (verify-full; libpq then needs
  // sslrootcert); only its NonValidatingFactory settles for encryption alone (require).
  if (ssl && !sslmode) out.emplace_back("sslmode", non_validating ? "require" : "verify-full");
}

void parseJdbc(std::string_view url, ConnectionParams& out, std::vector<std::string>& ignored) {
  const std::string shown = Config::redactPasswords(url);
  std::string_view rest = url.substr(kJdbcPrefix.size());
  std::string_view query;
  if (auto q = rest.find('?'); q != std::string_view::npos) {
    query = rest.substr(q + 1);
    rest = rest.substr(0, q);
  }
  std::string hosts, ports, dbname;
  if (rest.starts_with("//")) {
    rest.remove_prefix(2);
    const auto slash = rest.find('/');
    const std::string_view authority = rest.substr(0, slash);
    if (authority.find('@') != std::string_view::npos)
      throw std::invalid_argument(fmt::format(
          "{}: a JDBC URL takes no user[:password]@ before the host; use connection.user and "
          "connection.password (or ?user=&password=)",
          shown));
    dbname =
        slash == std::string_view::npos ? "" : percentDecode(rest.substr(slash + 1), "database");
    parseJdbcHosts(authority, shown, hosts, ports);
  } else {
    dbname = percentDecode(rest.starts_with('/') ? rest.substr(1) : rest, "database");
    hosts = "localhost";
    ports = "5432";
  }
  out.emplace_back("host", hosts);
  out.emplace_back("port", ports);
  if (!dbname.empty()) out.emplace_back("dbname", dbname);
  parseJdbcQuery(query, out, ignored);
}

}  // namespace

PgConnectionUrl::PgConnectionUrl(std::string_view url) {
  if (url.empty()) throw std::invalid_argument("connection.url is empty");
  if (url.starts_with(kJdbcPrefix)) {
    parseJdbc(url, url_params_, ignored_);
    return;
  }
  if (url.starts_with("jdbc:"))
    throw std::invalid_argument(
        fmt::format("'{}' is not a PostgreSQL JDBC URL (expected jdbc:postgresql://...)",
                    Config::redactPasswords(url)));
  // Another database's URL would get libpq's puzzling "missing \"=\" after …": name what is served.
  if (const auto scheme = url.find("://");
      scheme != std::string_view::npos && url.substr(0, scheme) != "postgresql" &&
      url.substr(0, scheme) != "postgres" &&
      url.substr(0, scheme).find_first_of(" =") == std::string_view::npos)
    throw std::invalid_argument(fmt::format(
        "'{}' is not a PostgreSQL URL: the postgres sink takes postgresql:// (or postgres://) "
        "URIs, key=value conninfo strings and jdbc:postgresql:// URLs",
        Config::redactPasswords(url)));
  // libpq's own syntaxes: let libpq judge them, so its error message reaches the user now
  // rather than at the first connection attempt.
  char* err = nullptr;
  const std::string text(url);
  PQconninfoOption* options = PQconninfoParse(text.c_str(), &err);
  if (!options) {
    std::string reason = err ? err : "not a libpq URI or conninfo string";
    if (err) PQfreemem(err);
    while (!reason.empty() && reason.back() == '\n') reason.pop_back();
    // A malformed string holding a password cannot be trusted to redact cleanly (is the word
    // after `password=x` part of it?), and libpq quotes the token it stumbled on: show neither.
    if (Config::redactPasswords(url) != url) {
      static const std::regex quoted(R"("[^"]*")");
      throw std::invalid_argument(
          fmt::format("cannot parse the URL (not shown: it holds a password): {}",
                      std::regex_replace(reason, quoted, "\"[hidden]\"")));
    }
    throw std::invalid_argument(fmt::format("cannot parse '{}': {}", url, reason));
  }
  for (const auto* o = options; o->keyword; ++o)
    if (std::string_view(o->keyword) == "client_encoding" && o->val && !isUtf8(o->val)) {
      const std::string value = o->val;
      PQconninfoFree(options);
      throw std::invalid_argument(fmt::format(
          "client_encoding={}: ksink exchanges text with PostgreSQL as UTF-8, as pgjdbc does (the "
          "server converts it to and from the database's encoding); leave client_encoding out",
          value));
    }
  PQconninfoFree(options);
  url_params_.emplace_back("dbname", text);  // expanded by PQconnectdbParams(expand_dbname=1)
}

ConnectionParams PgConnectionUrl::params(const std::string& user,
                                         const std::string& password) const {
  // Defaults first so the URL can override them: fail fast on an unreachable server, notice a
  // dead peer within seconds rather than after the kernel's two hours.
  ConnectionParams out{{"application_name", "ksink"}, {"connect_timeout", "10"},
                       {"keepalives", "1"},           {"keepalives_idle", "10"},
                       {"keepalives_interval", "5"},  {"keepalives_count", "3"}};
  out.insert(out.end(), url_params_.begin(), url_params_.end());
  if (!user.empty()) out.emplace_back("user", user);
  if (!password.empty()) out.emplace_back("password", password);
  // Last, so that nothing before (PGCLIENTENCODING, the database's own encoding) decides it: the
  // records' strings are UTF-8, and so must be what is read and written.
  out.emplace_back("client_encoding", "UTF8");
  return out;
}

bool PgConnectionUrl::accepts(std::string_view url) {
  try {
    PgConnectionUrl{url};
    return true;
  } catch (const std::invalid_argument&) {
    return false;
  }
}

}  // namespace ksink::postgres
