// A SQLite connection.url as the JDBC connectors' users write it, for the SQLite sink and source:
// sqlite:///absolute/path.db, sqlite:relative.db, jdbc:sqlite:path, or a plain file path.
#pragma once

#include <string>
#include <string_view>

namespace ksink::sqlite {

// The file path `url` names; throws ConfigException (key connection.url) for another scheme or a
// URL that names no file.
std::string pathFromUrl(const std::string& url);
// Whether `url` names SQLite by its scheme (sqlite:, jdbc:sqlite:): the JDBC connector classes'
// claim; a plain path is not claimed.
bool isSqliteUrl(std::string_view url);

}  // namespace ksink::sqlite
