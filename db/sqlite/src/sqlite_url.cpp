#include "ksink/sqlite_db/sqlite_url.h"

#include <fmt/format.h>

#include <vector>

#include "ksink/config_exception.h"

namespace ksink::sqlite {
namespace {

ConfigException urlError(std::string reason) {
  return ConfigException(std::vector<ConfigProblem>{{"connection.url", std::move(reason)}});
}

}  // namespace

std::string pathFromUrl(const std::string& url) {
  std::string_view rest = url;
  auto strip = [&](std::string_view prefix) {
    if (rest.substr(0, prefix.size()) != prefix) return false;
    rest.remove_prefix(prefix.size());
    return true;
  };
  if (!strip("jdbc:sqlite:") && !strip("sqlite://") && !strip("sqlite:") &&
      url.find("://") != std::string::npos)
    throw urlError(
        fmt::format("'{}' is not a SQLite URL (use sqlite:///path/to/file.db "
                    "or a plain file path)",
                    url));
  if (rest.empty()) throw urlError("names no database file");
  return std::string(rest);
}

bool isSqliteUrl(std::string_view url) {
  return url.starts_with("jdbc:sqlite:") || url.starts_with("sqlite:");
}

}  // namespace ksink::sqlite
