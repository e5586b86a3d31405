// A connector's offsets as Kafka Connect's REST API shows and changes them (KIP-875), applied as
// `ksink offsets` applies them: a sink's consumer group (and the offsets a sink keeps itself,
// through its alterOffsets hook), a source's offset store.
//   GET …/offsets     {"offsets":[{"partition":{…},"offset":{…}},…]}; a sink's partitions as
//                     {"kafka_topic","kafka_partition"}, its offsets as {"kafka_offset"}
//   PATCH …/offsets   that body: the partitions given set (a source's null offset resets that
//                     partition; a sink's offsets are reset as a whole, by DELETE)
//   DELETE …/offsets  every offset forgotten
#pragma once

#include <optional>
#include <string>

#include "connector_file.h"

namespace ksink {

std::string offsetsJson(const ConnectorFile& connector);

// `body`: a PATCH body; nullopt: DELETE. Returns Connect's answer. Throws ConfigException for a
// body it cannot apply, std::runtime_error saying what failed (and what was changed).
std::string alterOffsets(const ConnectorFile& connector, const std::optional<std::string>& body);

}  // namespace ksink
