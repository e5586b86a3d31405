// Umbrella header: the whole public SDK.
#pragma once

#include "ksink/config.h"
#include "ksink/config_def.h"
#include "ksink/config_exception.h"
#include "ksink/connector_status.h"
#include "ksink/errant_record_reporter.h"
#include "ksink/retriable_error.h"
#include "ksink/sink_record.h"
#include "ksink/sink_task.h"
#include "ksink/sink_task_context.h"
#include "ksink/topic_partition.h"
#include "ksink/worker.h"
