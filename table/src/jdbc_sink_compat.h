// The Confluent JDBC sink's keys that ksink does not implement, so that none is silently ignored
// (a .properties file carried over from Kafka Connect may hold any of them):
//   - keys that would change what lands in the destination are declared with the one value
//     ksink's behaviour matches (usually the default); any other value is refused at start, and
//     by `ksink validate`, naming the key and why;
//   - tuning keys with no ksink meaning are accepted and logged as ignored.
// The list is in docs/configuration-compatibility.md.
#pragma once

#include <string>
#include <vector>

#include "ksink/config.h"
#include "ksink/config_def.h"

namespace ksink::detail {

// Declares the keys above in `def` (the table toolkit's definitions); the ignored ones are
// reported by ConfigDef::ignoredIn().
void defineJdbcSinkCompatKeys(ConfigDef& def);

}  // namespace ksink::detail
