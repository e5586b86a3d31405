// The keys every database connector (the PostgreSQL sink, the table sources) reads the same way to
// reach its database, declared once: the user and password, which override any in connection.url,
// and how many failed attempts in a row, and how far apart, connecting may take before the task
// fails. connection.url itself is each connector's: which URLs it accepts differs.
#pragma once

#include "ksink/config_def.h"

namespace ksink::db {

const ConfigDef& connectionKeys();

}  // namespace ksink::db
