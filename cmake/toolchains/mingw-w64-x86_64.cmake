# SPDX-License-Identifier: MIT
# Cross-building ripple for Windows x64 on Debian with MinGW-w64 (g++-mingw-w64-x86-64). The posix threading
# variant provides std::thread and std::mutex. Vulkan, volk and Catch2 are headers (or source) that are the
# same on every platform, taken from the host; libraries come from the MinGW sysroot only.
# Build ripple's host tool first and pass it: -DRIPPLE_EMBED_EXECUTABLE=<host build>/tools/ripple-embed/ripple-embed
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc-posix)
set(CMAKE_CXX_COMPILER x86_64-w64-mingw32-g++-posix)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)
set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
# The C++ runtime (libstdc++, libgcc, winpthread) linked in, so that executables and a shared ripple.dll run
# without MinGW's DLLs beside them.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-static")
