// SPDX-License-Identifier: MIT
// Test-only (tools/vkd3d-tool.sh): the three glibc 2.38 entry points Debian sid's libvkd3d-shader calls,
// for Debian 12's glibc 2.36. C23's scanf/strtol differ from C11's only in accepting "0b" binary prefixes,
// which vkd3d's parsers never pass.
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

long __isoc23_strtol(const char* s, char** end, int base) { return strtol(s, end, base); }
unsigned long __isoc23_strtoul(const char* s, char** end, int base) { return strtoul(s, end, base); }
int __isoc23_sscanf(const char* s, const char* format, ...) {
    va_list args;
    va_start(args, format);
    const int n = vsscanf(s, format, args);
    va_end(args);
    return n;
}
