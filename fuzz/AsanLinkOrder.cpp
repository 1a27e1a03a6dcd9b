// Linked into every fuzzer of this folder. libFuzzer's link puts libstdc++ ahead of the shared
// ASan runtime in the executable's library list (-shared-libsan, see the top CMakeLists.txt),
// and ASan refuses to start unless it comes first. libstdc++ defines none of the functions ASan
// intercepts, so the order is harmless here: skip the check.
extern "C" const char *__asan_default_options() { return "verify_asan_link_order=0"; }
