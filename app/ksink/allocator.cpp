// jemalloc's settings for the ksink binary (read by jemalloc at its start; MALLOC_CONF in the
// environment still overrides them). One arena, each thread with its own cache, and freed pages
// returned after half a second: the sinks' peak memory stays what it was with glibc's malloc,
// while a source's records, allocated on one thread and freed on others, no longer contend for
// arena locks (docs/performance.md).
extern "C" {
// NOLINTNEXTLINE: the name jemalloc looks for.
const char* malloc_conf = "narenas:1,dirty_decay_ms:500,muzzy_decay_ms:0";
}
