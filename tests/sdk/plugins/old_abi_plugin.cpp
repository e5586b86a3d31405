// A plugin as an older SDK built them: its entry points, not this SDK's macro, so the test sees
// what `ksink` says to a plugin nobody rebuilt. KSINK_OLD_ABI: 1, the sinks-only SDK (whose entry
// point was ksink_register_sinks), or a later one (ksink_register_connectors).
#ifndef KSINK_OLD_ABI
#define KSINK_OLD_ABI 1
#endif
extern "C" int ksink_plugin_abi_version() {
  return KSINK_OLD_ABI;
}
#if KSINK_OLD_ABI == 1
extern "C" void ksink_register_sinks(void* /*registry*/) {}
#else
extern "C" void ksink_register_connectors(void* /*registry*/) {}
#endif
