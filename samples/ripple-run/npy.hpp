// SPDX-License-Identifier: MIT
// Minimal .npy (NumPy format 1.0-3.0) reading and writing for ripple's data types.
#pragma once

#include "ripple/tensor.hpp"

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

namespace npy {

struct Array {
    ripple::DataType type = ripple::DataType::Float32;
    std::vector<uint32_t> shape; // may be empty (a 0-d array)
    std::vector<uint8_t> data;   // little-endian, C order
    uint64_t count() const;      // the product of shape, saturating at UINT64_MAX
};

// Reads `path`, strictly to numpy's format (numpy.lib.format): magic, version 1.0/2.0/3.0, a header of at
// most 64 KiB holding exactly the keys descr, fortran_order and shape, dimensions below 2^32, and a file
// whose length after the header is exactly the shape's bytes (checked before anything is allocated). On
// failure returns false with `error`: one line naming the file and the rule. Never throws.
bool load(const std::string& path, Array& out, std::string& error);
// load() on an open stream (the fuzzer's entry: test/fuzz/fuzz_npy.cpp); `path` names it in errors.
bool read(std::istream& file, const std::string& path, Array& out, std::string& error);
// Writes `path` atomically: a temporary file renamed into place, so a failure leaves no file.
bool save(const std::string& path, const Array& array, std::string& error);
const char* descr(ripple::DataType type); // "<f4", "|u1", ...
// Whether `path` may be written as an output: it does not exist or is a regular file (never a device node,
// directory, link or pipe); else false with `error` naming it and the rule.
// `text` for a one-line message: control characters (a newline, a terminal escape) written as \xNN.
std::string printable(const std::string& text);
bool writableOutput(const std::string& path, std::string& error);

} // namespace npy
