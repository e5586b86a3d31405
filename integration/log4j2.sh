# Sourced, not run: the log4j2 configuration the integration JVMs (the Kafka broker, Connect
# workers) write for themselves.
# shellcheck shell=bash

# log4j2_file_config <file> <log file> <root level> [<logger>=<level>...]: log to <log file> at
# the root level, with the given loggers at their own level (e.g. lifecycle lines at INFO under a
# WARN root, so a failed start shows how far it got).
log4j2_file_config() {
  local file="$1" log="$2" level="$3" spec i=0
  shift 3
  cat >"$file" <<L4J
appender.file.type = File
appender.file.name = FILE
appender.file.fileName = $log
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = $level
rootLogger.appenderRef.file.ref = FILE
L4J
  for spec in "$@"; do
    i=$((i + 1))
    printf "logger.l%d.name = %s\nlogger.l%d.level = %s\n" "$i" "${spec%=*}" "$i" "${spec##*=}" \
      >>"$file"
  done
}
