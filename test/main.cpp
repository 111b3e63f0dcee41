// SPDX-License-Identifier: MIT
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#if defined(__linux__)
#include <cstdlib>
#include <dlfcn.h>
#include <string>

// Sanitizer runs (tools/ci-sanitizers.sh): the Vulkan loader unloads the driver and the validation layer
// when the last instance goes, and LeakSanitizer can then name neither module in a leak's stack, so the
// suppressions (test/sanitizers/lsan.supp) could not tell driver leaks from ripple's.
// RIPPLE_TEST_KEEP_MODULES (paths separated by ':') keeps those modules loaded to the end.
static const bool keptModules = [] {
    const char* list = std::getenv("RIPPLE_TEST_KEEP_MODULES");
    std::string paths = list ? list : "";
    for (size_t begin = 0; begin < paths.size();) {
        size_t end = paths.find(':', begin);
        if (end == std::string::npos) end = paths.size();
        if (end > begin) (void)dlopen(paths.substr(begin, end - begin).c_str(), RTLD_LAZY | RTLD_NODELETE);
        begin = end + 1;
    }
    return true;
}();
#endif
