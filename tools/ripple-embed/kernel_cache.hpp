// SPDX-License-Identifier: MIT
// The kernel cache: compiled kernel artifacts (SPIR-V, the HLSL round trip's SPIR-V, D3D12 bytecode) kept in
// a directory between builds, keyed by a SHA-256 of everything that decides them: the inputs' contents, the
// arguments, and the tools' versions, paths, sizes and modification times. Builds that share the directory
// (RIPPLE_KERNEL_CACHE_DIR: CI's Windows, packaging, sanitizer and test builds) compile each variant once.
// An entry is written under another name and renamed, so builds running at once never read a partial one.
// Each lookup appends "hit|miss|uncached <kind> <name>" to <dir>/log, which CI counts.
#pragma once

#include "sha256.hpp"

#include <string>
#include <vector>

namespace ripple_embed {

bool readBytes(const std::string& path, std::string& out);
/// Writes through a temporary file and a rename: readers never see a partial file.
bool writeBytes(const std::string& path, const std::string& data);
/// Adds a tool's identity to a key: its path, size and modification time (an upgraded package differs).
void addToolStamp(Sha256& key, const std::string& path);
/// Adds every file under `dir` (sorted paths relative to it, and contents); false if it cannot be read.
bool addDirectory(Sha256& key, const std::string& dir);
/// Runs a program with arguments; with `logPath`, its output goes there. Returns its exit status.
int runProgram(const std::vector<std::string>& argv, const std::string& logPath = std::string());

class KernelCache {
  public:
    /// `dir` empty: no cache, every lookup misses and nothing is stored.
    KernelCache(std::string dir, std::string kind, std::string name);
    /// The entry's parts (files' contents) for `key`, or false.
    bool find(const std::string& key, std::vector<std::string>& parts);
    void store(const std::string& key, const std::vector<std::string>& parts);
    /// Appends "<what> <kind> <name>" to the directory's log: "hit", "miss", or "uncached" (built, not
    /// stored: its inputs are not all in its key).
    void note(const char* what);

  private:
    std::string dir_, kind_, name_;
};

} // namespace ripple_embed
