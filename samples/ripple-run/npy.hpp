// SPDX-License-Identifier: MIT
// Minimal .npy (NumPy format 1.0-3.0) reading and writing for ripple's data types.
#pragma once

#include "ripple/tensor.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace npy {

struct Array {
    ripple::DataType type = ripple::DataType::Float32;
    std::vector<uint32_t> shape; // may be empty (a 0-d array)
    std::vector<uint8_t> data;   // little-endian, C order
    uint64_t count() const;
};

// Reads `path`; on failure returns false with `error` saying why (unsupported dtype, Fortran order, ...).
bool load(const std::string& path, Array& out, std::string& error);
// Writes `path` atomically: a temporary file renamed into place, so a failure leaves no file.
bool save(const std::string& path, const Array& array, std::string& error);
const char* descr(ripple::DataType type); // "<f4", "|u1", ...

} // namespace npy
