// Umbrella header: the whole public SDK (what ksink::sdk links) — the core's connector contract
// (config, records, SinkTask and its context, errors) and the runtime a program drives (Worker,
// SinkRegistry, runCli, plugins), from sdk/include; Connect's data model (converters, schemas and
// values, ConnectRecord, transforms), from data/include; and the table-sink toolkit (RecordMapper,
// TableSinkConfig, TransactionalSinkTask), from table/include. It lives with the toolkit, the
// highest of the three layers.
#pragma once

#include "ksink/civil_date.h"
#include "ksink/cli.h"
#include "ksink/config.h"
#include "ksink/config_def.h"
#include "ksink/config_exception.h"
#include "ksink/connect_record.h"
#include "ksink/connector_status.h"
#include "ksink/conversion_error.h"
#include "ksink/conversion_interrupted.h"
#include "ksink/converter.h"
#include "ksink/errant_record_reporter.h"
#include "ksink/offset_store.h"
#include "ksink/plugin.h"
#include "ksink/record_mapper.h"
#include "ksink/retriable_error.h"
#include "ksink/schema.h"
#include "ksink/sink_record.h"
#include "ksink/sink_registry.h"
#include "ksink/sink_task.h"
#include "ksink/sink_task_context.h"
#include "ksink/table_policy.h"
#include "ksink/table_sink_config.h"
#include "ksink/table_sink_registration.h"
#include "ksink/topic_partition.h"
#include "ksink/transactional_destination.h"
#include "ksink/transactional_sink_task.h"
#include "ksink/transformation.h"
#include "ksink/transformation_chain.h"
#include "ksink/transformation_registry.h"
#include "ksink/value.h"
#include "ksink/worker.h"
#include "ksink/write_failure.h"
