// The keys every server database connector (the PostgreSQL sink, the table sources) reads the same
// way to reach its database, declared once: the user and password, which override any in
// connection.url, and how many failed attempts in a row, and how far apart, connecting may take
// before the task fails. `when` says which attempts count (the sink's: those at start; empty: every
// one). connection.url itself is each connector's: which URLs it accepts differs.
#pragma once

#include <string_view>

#include "ksink/config_def.h"

namespace ksink::db {

ConfigDef connectionKeys(std::string_view when = {});

}  // namespace ksink::db
