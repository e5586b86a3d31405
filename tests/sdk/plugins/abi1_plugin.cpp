// A plugin as the sinks-only SDK (plugin ABI 1) built them: its entry points, not this SDK's
// macro, so the test sees what `ksink` says to a plugin nobody rebuilt.
extern "C" int ksink_plugin_abi_version() {
  return 1;
}
extern "C" void ksink_register_sinks(void* /*registry*/) {}
