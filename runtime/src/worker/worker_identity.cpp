#include "worker_identity.h"

#include <fmt/format.h>
#include <unistd.h>

#include "ksink/detail/config_parse.h"

namespace ksink {
namespace {

std::string hostName() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "ksink";
  return name;
}

std::string setting(const std::map<std::string, std::string>& worker, const std::string& key) {
  auto it = worker.find(key);
  return it == worker.end() ? std::string() : std::string(detail::trim(it->second));
}

}  // namespace

std::string workerIdentity(const std::map<std::string, std::string>& worker,
                           const std::string& bound) {
  if (bound.empty()) return fmt::format("{}#{}", hostName(), getpid());
  const auto colon = bound.rfind(':');
  std::string host = bound.substr(0, colon);
  std::string port = colon == std::string::npos ? std::string() : bound.substr(colon + 1);
  if (host == "0.0.0.0" || host == "::" || host == "[::]" || host.empty()) host = hostName();
  if (auto advertised = setting(worker, "rest.advertised.host.name"); !advertised.empty())
    host = advertised;
  if (auto advertised = setting(worker, "rest.advertised.port"); !advertised.empty())
    port = advertised;
  return host + ':' + port;
}

}  // namespace ksink
