// SPDX-License-Identifier: MIT
// volk, compiled into ripple with every one of its global names prefixed by "ripple_" (the generated
// renaming header; cmake/RippleDependencies.cmake), so it links beside an engine's loader or own volk.
#include "ripple_volk_rename.h"

#include <volk.c>
