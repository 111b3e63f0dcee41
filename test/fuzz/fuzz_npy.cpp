// SPDX-License-Identifier: MIT
// libFuzzer target: ripple-run's .npy reader (samples/ripple-run/npy.cpp) on arbitrary bytes. It must
// return false with a one-line message or an array whose data is exactly its shape's bytes and the rest of
// the file; it must never crash, throw, or read past the bytes. tools/ci-sanitizers.sh runs it with a 64 MiB
// malloc limit: a reader that sized its buffer from the header before checking the file would exceed it.
#include "npy.hpp"

#include <cstdlib>
#include <sstream>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
    std::istringstream file(std::string(reinterpret_cast<const char*>(bytes), size));
    npy::Array array;
    std::string error;
    if (!npy::read(file, "fuzz.npy", array, error)) {
        // One line that names the file.
        if (error.empty() || error.find('\n') != std::string::npos ||
            error.find("fuzz.npy") == std::string::npos)
            std::abort();
        return 0;
    }
    const uint64_t count = array.count(), element = ripple::elementSize(array.type);
    if (count > size || array.data.size() != count * element || array.data.size() > size) std::abort();
    if (file.peek() != std::char_traits<char>::eof())
        std::abort(); // accepted: the data ends the file exactly
    return 0;
}
