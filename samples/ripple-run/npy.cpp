// SPDX-License-Identifier: MIT
#include "npy.hpp"

#include <cstdio>
#include <cstring>
#include <fstream>

#if defined(_WIN32)
#define NOMINMAX
#include <windows.h>
#endif

namespace npy {

uint64_t Array::count() const {
    uint64_t n = 1;
    for (uint32_t s : shape) n *= s;
    return n;
}

const char* descr(ripple::DataType type) {
    using ripple::DataType;
    switch (type) {
    case DataType::Float32:
        return "<f4";
    case DataType::Float16:
        return "<f2";
    case DataType::UInt32:
        return "<u4";
    case DataType::UInt16:
        return "<u2";
    case DataType::UInt8:
        return "|u1";
    case DataType::Int32:
        return "<i4";
    case DataType::Int16:
        return "<i2";
    case DataType::Int8:
        return "|i1";
    case DataType::Float64:
        return "<f8";
    case DataType::UInt64:
        return "<u8";
    case DataType::Int64:
        return "<i8";
    case DataType::BFloat16: // NumPy has no bfloat16 type: such tensors are not read or written as .npy
        return "";
    }
    return "";
}

namespace {

bool parseDescr(std::string d, ripple::DataType& type) {
    using ripple::DataType;
    if (d.size() == 3 && (d[0] == '=' || d[0] == '|')) d[0] = '<'; // native/no byte order on little-endian
    static const std::pair<const char*, DataType> table[] = {
        {"<f4", DataType::Float32}, {"<f2", DataType::Float16}, {"<u4", DataType::UInt32},
        {"<u2", DataType::UInt16},  {"<u1", DataType::UInt8},   {"<i4", DataType::Int32},
        {"<i2", DataType::Int16},   {"<i1", DataType::Int8},    {"<f8", DataType::Float64},
        {"<u8", DataType::UInt64},  {"<i8", DataType::Int64}};
    for (auto& [name, t] : table)
        if (d == name) return type = t, true;
    return false;
}

// The value of `key` in the header dict, up to the next top-level ',' or '}'.
std::string field(const std::string& header, const std::string& key) {
    size_t at = header.find("'" + key + "'");
    if (at == std::string::npos) return "";
    at = header.find(':', at);
    if (at == std::string::npos) return "";
    size_t end = at + 1;
    int depth = 0;
    for (; end < header.size(); ++end) {
        char c = header[end];
        if (c == '(') ++depth;
        if (c == ')') --depth;
        if (depth == 0 && (c == ',' || c == '}')) break;
    }
    std::string v = header.substr(at + 1, end - at - 1);
    v.erase(0, v.find_first_not_of(" "));
    v.erase(v.find_last_not_of(" ") + 1);
    return v;
}

} // namespace

bool load(const std::string& path, Array& out, std::string& error) {
    std::ifstream f(path, std::ios::binary);
    if (!f) return error = "cannot open " + path, false;
    char magic[8];
    if (!f.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0)
        return error = path + " is not a .npy file", false;
    uint32_t headerLen = 0;
    if (magic[6] == 1) {
        uint8_t b[2];
        f.read(reinterpret_cast<char*>(b), 2);
        headerLen = b[0] | (b[1] << 8);
    } else {
        uint8_t b[4];
        f.read(reinterpret_cast<char*>(b), 4);
        headerLen = b[0] | (b[1] << 8) | (b[2] << 16) | (uint32_t(b[3]) << 24);
    }
    std::string header(headerLen, '\0');
    if (!f.read(header.data(), headerLen)) return error = path + ": truncated header", false;
    std::string d = field(header, "descr");
    if (d.size() < 2) return error = path + ": no dtype in header", false;
    d = d.substr(1, d.size() - 2);
    if (!parseDescr(d, out.type))
        return error = path + ": dtype " + d +
                       " is not one of ripple's data types (little-endian float16/32/64, "
                       "int8/16/32/64, uint8/16/32/64)",
               false;
    if (field(header, "fortran_order") != "False")
        return error = path + ": Fortran-ordered arrays are not supported; save a C-ordered copy", false;
    std::string shape = field(header, "shape");
    out.shape.clear();
    for (size_t i = 0; i < shape.size();) {
        if (std::isdigit(static_cast<unsigned char>(shape[i]))) {
            size_t end = i;
            unsigned long long v = std::stoull(shape.substr(i), &end);
            if (v > 0xFFFFFFFFull) return error = path + ": a dimension exceeds 2^32-1", false;
            out.shape.push_back(static_cast<uint32_t>(v));
            i += end;
        } else {
            ++i;
        }
    }
    uint64_t bytes = out.count() * ripple::elementSize(out.type);
    out.data.resize(bytes);
    if (bytes && !f.read(reinterpret_cast<char*>(out.data.data()), static_cast<std::streamsize>(bytes)))
        return error = path + ": truncated data (" + std::to_string(bytes) + " bytes expected)", false;
    return true;
}

bool save(const std::string& path, const Array& array, std::string& error) {
    std::string shape = "(";
    for (size_t i = 0; i < array.shape.size(); ++i) shape += (i ? ", " : "") + std::to_string(array.shape[i]);
    shape += array.shape.size() == 1 ? ",)" : ")"; // "(4,)", "(2, 3)", "()"
    std::string header = std::string("{'descr': '") + descr(array.type) +
                         "', 'fortran_order': False, 'shape': " + shape + ", }";
    size_t total = 10 + header.size() + 1;
    header.append((64 - total % 64) % 64, ' ');
    header += '\n';
    std::string tmp = path + ".partial";
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        uint16_t len = static_cast<uint16_t>(header.size());
        char lenBytes[2] = {static_cast<char>(len & 0xFF), static_cast<char>(len >> 8)};
        f.write("\x93NUMPY\x01\x00", 8);
        f.write(lenBytes, 2);
        f.write(header.data(), static_cast<std::streamsize>(header.size()));
        f.write(reinterpret_cast<const char*>(array.data.data()),
                static_cast<std::streamsize>(array.data.size()));
        f.flush();
        if (!f) {
            std::remove(tmp.c_str());
            return error = "cannot write " + path, false;
        }
    }
#if defined(_WIN32)
    const bool moved =
        MoveFileExA(tmp.c_str(), path.c_str(), MOVEFILE_REPLACE_EXISTING) != 0; // rename won't replace
#else
    const bool moved = std::rename(tmp.c_str(), path.c_str()) == 0;
#endif
    if (!moved) {
        std::remove(tmp.c_str());
        return error = "cannot write " + path, false;
    }
    return true;
}

} // namespace npy
