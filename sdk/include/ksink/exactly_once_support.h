// What a source connector declares about exactly-once delivery (Kafka Connect's
// SourceConnector.exactlyOnceSupport() and canDefineTransactionBoundaries(), KIP-618), for its
// configuration. The worker asks before it starts the connector's tasks:
// `exactly.once.support=required` refuses a connector that does not declare kSupported, and
// `transaction.boundary=connector` one whose tasks cannot define their boundaries.
#pragma once

#include <functional>

#include "ksink/config.h"

namespace ksink {

enum class ExactlyOnceSupport { kUnsupported, kSupported };
enum class ConnectorTransactionBoundaries { kUnsupported, kSupported };

struct SourceCapabilities {
  // Null: the connector does not say (as Connect's null), which `required` refuses.
  std::function<ExactlyOnceSupport(const Config& config)> exactly_once = nullptr;
  // Null: kUnsupported (Connect's default).
  std::function<ConnectorTransactionBoundaries(const Config& config)> transaction_boundaries =
      nullptr;
};

}  // namespace ksink
