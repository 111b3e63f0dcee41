// SPDX-License-Identifier: MIT
// The kernel cache (kernel_cache.hpp): entries, keys' file parts, and running the compilers.
#include "kernel_cache.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <system_error>

namespace fs = std::filesystem;

namespace ripple_embed {

bool readBytes(const std::string& path, std::string& out) {
    std::ifstream in(fs::u8path(path), std::ios::binary);
    if (!in) return false;
    out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return !in.bad();
}

bool writeBytes(const std::string& path, const std::string& data) {
    std::random_device entropy;
    const fs::path target = fs::u8path(path);
    const fs::path temp = fs::u8path(path + "." + std::to_string(entropy()) + ".tmp");
    {
        std::ofstream out(temp, std::ios::binary | std::ios::trunc);
        if (!out.write(data.data(), std::streamsize(data.size())) || !out.flush()) {
            out.close();
            std::error_code ignored;
            fs::remove(temp, ignored);
            return false;
        }
    }
    std::error_code error;
    fs::rename(temp, target, error);
    if (error) fs::remove(temp, error);
    return !error;
}

void addToolStamp(Sha256& key, const std::string& path) {
    std::error_code error;
    const fs::path tool = fs::u8path(path);
    const auto size = fs::file_size(tool, error);
    const auto time = fs::last_write_time(tool, error);
    key.field(path);
    key.field(std::to_string(error ? 0 : size) + " " +
              std::to_string(error ? 0 : time.time_since_epoch().count()));
}

bool addDirectory(Sha256& key, const std::string& dir) {
    std::error_code error;
    std::vector<fs::path> files;
    for (fs::recursive_directory_iterator it(fs::u8path(dir), error), end; !error && it != end;
         it.increment(error))
        if (it->is_regular_file()) files.push_back(it->path());
    if (error) return false;
    std::sort(files.begin(), files.end());
    std::string text;
    for (const fs::path& file : files) {
        if (!readBytes(file.u8string(), text)) return false;
        key.field(file.lexically_relative(fs::u8path(dir)).generic_u8string());
        key.field(text);
    }
    return true;
}

namespace {

// One argument for the host's shell: std::system runs /bin/sh -c on POSIX and cmd /c on Windows.
std::string quoted(const std::string& arg) {
#ifdef _WIN32
    return "\"" + arg + "\"";
#else
    std::string out = "'";
    for (char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
#endif
}

} // namespace

int runProgram(const std::vector<std::string>& argv, const std::string& logPath) {
    std::string command;
    for (const std::string& arg : argv) command += (command.empty() ? "" : " ") + quoted(arg);
    if (!logPath.empty()) command += " > " + quoted(logPath) + " 2>&1";
#ifdef _WIN32
    command = "\"" + command + "\""; // cmd /c strips one pair of outer quotes
#endif
    std::fflush(nullptr);
    const int status = std::system(command.c_str());
#ifdef _WIN32
    return status;
#else
    return status == -1           ? -1
           : (status >> 8) & 0xff ? (status >> 8) & 0xff
           : status & 0x7f        ? 128 + (status & 0x7f)
                                  : 0;
#endif
}

KernelCache::KernelCache(std::string dir, std::string kind, std::string name)
    : dir_(std::move(dir)), kind_(std::move(kind)), name_(std::move(name)) {}

// An entry is one file: per part, its length in decimal and a newline, then its bytes.
bool KernelCache::find(const std::string& key, std::vector<std::string>& parts) {
    std::string entry;
    if (dir_.empty() || !readBytes(dir_ + "/" + kind_ + "/" + key, entry)) return false;
    parts.clear();
    for (size_t at = 0; at < entry.size();) {
        const size_t newline = entry.find('\n', at);
        if (newline == std::string::npos) return false;
        const unsigned long long size = std::strtoull(entry.c_str() + at, nullptr, 10);
        if (size > entry.size() - newline - 1) return false;
        parts.push_back(entry.substr(newline + 1, size_t(size)));
        at = newline + 1 + size_t(size);
    }
    return true;
}

void KernelCache::store(const std::string& key, const std::vector<std::string>& parts) {
    if (dir_.empty()) return;
    std::string entry;
    for (const std::string& part : parts) entry += std::to_string(part.size()) + "\n" + part;
    std::error_code ignored;
    fs::create_directories(fs::u8path(dir_ + "/" + kind_), ignored);
    writeBytes(dir_ + "/" + kind_ + "/" + key, entry); // a cache that cannot be written only costs time
}

void KernelCache::note(const char* what) {
    if (dir_.empty()) return;
    std::error_code ignored;
    fs::create_directories(fs::u8path(dir_), ignored);
    // One short line per append: appends from parallel builds do not interleave within a line.
    if (std::FILE* f = std::fopen((dir_ + "/log").c_str(), "ab")) {
        std::fprintf(f, "%s %s %s\n", what, kind_.c_str(), name_.c_str());
        std::fclose(f);
    }
}

} // namespace ripple_embed
