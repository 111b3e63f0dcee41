// SPDX-License-Identifier: MIT
// libFuzzer target: ripple-run's .npy reader (samples/ripple-run/npy.cpp) on arbitrary bytes. It must
// return false with a one-line message or an array whose data is exactly its shape's bytes; it must never
// crash, throw, read past the bytes, or allocate more than the bytes it was given (plus the header).
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
    return 0;
}
