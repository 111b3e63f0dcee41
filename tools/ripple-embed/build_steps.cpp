// SPDX-License-Identifier: MIT
// The build's per-variant steps (build_steps.hpp): what each compiles, what its cache key holds, and the
// messages a failing compiler leaves.
#include "build_steps.hpp"

#include "kernel_cache.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>

namespace fs = std::filesystem;

namespace ripple_embed {
namespace {

bool fail(const std::string& what) {
    std::fprintf(stderr, "ripple-embed: %s\n", what.c_str());
    return false;
}

// "--name value" options up to "--" (or the end); the rest is `rest`. False on an option without a value.
bool options(const std::vector<std::string>& args, size_t from, std::map<std::string, std::string>& named,
             std::vector<std::string>& rest) {
    size_t i = from;
    for (; i < args.size() && args[i] != "--"; i += 2) {
        if (args[i].rfind("--", 0) != 0 || i + 1 >= args.size()) return fail("bad option " + args[i]);
        named[args[i].substr(2)] = args[i + 1];
    }
    if (i < args.size()) rest.assign(args.begin() + long(i) + 1, args.end());
    return true;
}

bool has(const std::map<std::string, std::string>& named, std::initializer_list<const char*> keys) {
    for (const char* key : keys)
        if (!named.count(key)) return fail(std::string("missing --") + key);
    return true;
}

std::string get(const std::map<std::string, std::string>& named, const char* key) {
    auto it = named.find(key);
    return it == named.end() ? std::string() : it->second;
}

std::string depfileEscaped(const std::string& path) {
    std::string out;
    for (char c : path) out += c == ' ' ? std::string("\\ ") : std::string(1, c);
    return out;
}

// The dependencies a Makefile-style depfile names (after its first unescaped ':' followed by a space).
std::vector<std::string> depfileInputs(const std::string& text) {
    std::vector<std::string> inputs;
    size_t at = text.find(": ");
    if (at == std::string::npos) return inputs;
    std::string current;
    for (size_t i = at + 2; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '\\' && i + 1 < text.size() && (text[i + 1] == ' ' || text[i + 1] == '\n')) {
            if (text[i + 1] == ' ') current += ' ';
            ++i;
        } else if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
            if (!current.empty()) inputs.push_back(current), current.clear();
        } else {
            current += c;
        }
    }
    if (!current.empty()) inputs.push_back(current);
    return inputs;
}

bool within(const fs::path& file, const fs::path& dir) {
    std::error_code error;
    const std::string f = fs::weakly_canonical(file, error).generic_u8string();
    const std::string d = fs::weakly_canonical(dir, error).generic_u8string() + "/";
    if (error) return false;
    return f.rfind(d, 0) == 0;
}

void removeAll(std::initializer_list<std::string> paths) {
    std::error_code ignored;
    for (const std::string& p : paths) fs::remove(fs::u8path(p), ignored);
}

// A failed compiler's output and the first lines of what it compiled.
void report(const std::string& what, const std::string& logPath, const std::string& source) {
    std::string log, text;
    readBytes(logPath, log);
    readBytes(source, text);
    std::istringstream lines(text);
    std::string first, line;
    for (int i = 0; i < 12 && std::getline(lines, line); ++i) first += "    " + line + "\n";
    std::fprintf(stderr, "ripple-embed: %s (%s):\n%s\nIts source begins:\n%s", what.c_str(), source.c_str(),
                 log.c_str(), first.c_str());
}

// A step's HLSL from its SPIR-V (hlsl_portable.cpp): 0 with `text` to go on, else the exit code, after
// writing an empty OUT for a variant with no D3D12 form.
int hlslOf(const std::string& spv, const std::string& hlsl, const std::string& out, bool roundTrip,
           std::string& text, bool& done) {
    done = true;
    std::error_code ignored;
    fs::create_directories(fs::u8path(out).parent_path(), ignored);
    if (hlslForRoundTrip(spv, hlsl, roundTrip) != 0) return 1;
    if (!readBytes(hlsl, text)) return fail("cannot read " + hlsl), 1;
    if (text.empty()) return writeBytes(out, "") ? 0 : 1;
    done = false;
    return 0;
}

struct Command {
    std::vector<std::string> argv;
    std::string failure; // what to say when it fails or leaves no OUT
};

// A one-file step: OUT from the cache entry `digest`, else from the commands in turn, each logged. The first
// that fails is reported with its log and the HLSL's first lines, and nothing is kept.
int cachedStep(KernelCache& cache, const std::string& digest, const std::string& out, const std::string& hlsl,
               const std::vector<Command>& commands) {
    std::vector<std::string> parts;
    if (cache.find(digest, parts) && parts.size() == 1)
        return cache.note("hit"), writeBytes(out, parts[0]) ? 0 : 1;
    cache.note("miss");
    const std::string log = out + ".log";
    std::error_code ignored;
    for (const Command& command : commands) {
        if (runProgram(command.argv, log) != 0 || !fs::exists(fs::u8path(out), ignored)) {
            report(command.failure, log, hlsl);
            removeAll({out, log});
            return 1;
        }
    }
    removeAll({log});
    std::string bytes;
    if (readBytes(out, bytes)) cache.store(digest, {bytes});
    return 0;
}

} // namespace

// glsl --source S --spv OUT --stripped OUT --depfile D --glslang P --spirv-val P --spirv-opt P
//      [--depfile-target T] [--tools-version V] [--cache DIR] [--name VARIANT] -- GLSLANG_FLAGS...
// The depfile's target is T (default OUT): Ninja, with CMP0116 OLD, takes a step whose depfile names its
// output other than as build.ninja does (relative to the top build folder) as dirty on every build.
// Two keys, as ccache's direct mode: the manifest's (the flags, the source, the tools) names the includes the
// last compile read (from glslang's depfile, relative to their -I directory); the entry's adds their
// contents. Any change to what a compile read changes a file the manifest names, so it misses. A compile
// that read anything outside the source and the -I directories is not stored.
int glslStep(const std::vector<std::string>& args) {
    std::map<std::string, std::string> o;
    std::vector<std::string> flags;
    if (!options(args, 0, o, flags) ||
        !has(o, {"source", "spv", "stripped", "depfile", "glslang", "spirv-val", "spirv-opt"}))
        return 2;
    const std::string source = o["source"], spv = o["spv"], stripped = o["stripped"], dep = o["depfile"];
    const std::string target = get(o, "depfile-target").empty() ? spv : get(o, "depfile-target");
    KernelCache cache(get(o, "cache"), "glsl", get(o, "name").empty() ? spv : get(o, "name"));
    std::error_code ignored;
    for (const std::string& out : {spv, stripped, dep})
        fs::create_directories(fs::u8path(out).parent_path(), ignored);
    Sha256 manifestKey;
    manifestKey.field("ripple-embed glsl 2");
    manifestKey.field(get(o, "tools-version"));
    for (const char* tool : {"glslang", "spirv-val", "spirv-opt"}) addToolStamp(manifestKey, o[tool]);
    std::vector<fs::path> includeDirs;
    for (const std::string& flag : flags) {
        manifestKey.field(flag.rfind("-I", 0) == 0 ? std::string("-I") : flag);
        if (flag.rfind("-I", 0) == 0) includeDirs.push_back(fs::u8path(flag.substr(2)));
    }
    std::string text;
    if (!readBytes(source, text)) return fail("cannot read " + source), 1;
    manifestKey.field(text);
    const std::string manifestDigest = manifestKey.hex();

    // The entry's key from a manifest ("<-I index> <path relative to it>" per line); false if a file it
    // names is gone. `paths` gets the files, for the depfile.
    auto entryKey = [&](const std::string& manifest, std::string& digest, std::vector<std::string>& paths) {
        Sha256 key;
        key.field(manifestDigest);
        std::istringstream lines(manifest);
        std::string line, contents;
        while (std::getline(lines, line)) {
            const size_t space = line.find(' ');
            const size_t index = space == std::string::npos ? includeDirs.size()
                                                            : size_t(std::strtoul(line.c_str(), nullptr, 10));
            if (index >= includeDirs.size()) return false;
            const fs::path file = includeDirs[index] / fs::u8path(line.substr(space + 1));
            if (!readBytes(file.u8string(), contents)) return false;
            key.field(line);
            key.field(contents);
            paths.push_back(file.u8string());
        }
        digest = key.hex();
        return true;
    };
    std::vector<std::string> parts, paths;
    std::string manifest, digest;
    if (cache.find(manifestDigest + ".manifest", parts) && parts.size() == 1 &&
        entryKey(parts[0], digest, paths) && cache.find(digest, parts) && parts.size() == 2) {
        cache.note("hit");
        std::string deps = depfileEscaped(target) + ": " + depfileEscaped(source);
        for (const std::string& path : paths) deps += " \\\n  " + depfileEscaped(path);
        return writeBytes(spv, parts[0]) && writeBytes(stripped, parts[1]) && writeBytes(dep, deps + "\n")
                   ? 0
                   : 1;
    }
    cache.note("miss");
    std::vector<std::string> compile = {o["glslang"], "--quiet"};
    compile.insert(compile.end(), flags.begin(), flags.end());
    compile.insert(compile.end(), {"--depfile", dep, "-o", spv, source});
    if (runProgram(compile) != 0 || runProgram({o["spirv-val"], "--target-env", "vulkan1.1", spv}) != 0 ||
        runProgram({o["spirv-opt"], "--strip-debug", spv, "-o", stripped}) != 0) {
        removeAll({spv, stripped});
        return 1;
    }
    std::string depText, spvBytes, strippedBytes;
    bool storable = readBytes(dep, depText) && readBytes(spv, spvBytes) && readBytes(stripped, strippedBytes);
    std::string deps = depfileEscaped(target) + ": " + depfileEscaped(source);
    for (const std::string& input : depfileInputs(depText)) {
        if (input == source) continue;
        deps += " \\\n  " + depfileEscaped(input);
        bool covered = false;
        for (size_t i = 0; i < includeDirs.size() && !covered; ++i) {
            const fs::path relative = fs::u8path(input).lexically_relative(includeDirs[i]);
            covered =
                !relative.empty() && *relative.begin() != ".." && within(fs::u8path(input), includeDirs[i]);
            if (covered) manifest += std::to_string(i) + " " + relative.generic_u8string() + "\n";
        }
        storable = storable && covered;
    }
    if (!writeBytes(dep, deps + "\n")) return fail("cannot write " + dep), 1;
    paths.clear();
    if (!storable || !entryKey(manifest, digest, paths)) return cache.note("uncached"), 0;
    cache.store(digest, {spvBytes, strippedBytes});
    cache.store(manifestDigest + ".manifest",
                {manifest}); // after the entry: a manifest never names a missing one
    return 0;
}

// hlsl-round-trip --spv IN --hlsl OUT --out OUT --glslang P --spirv-val P [--tools-version V] [--cache DIR]
// An empty OUT for a variant with no D3D12 form. The key: the HLSL, glslang's flags, the tools.
int hlslRoundTripStep(const std::vector<std::string>& args) {
    std::map<std::string, std::string> o;
    std::vector<std::string> rest;
    if (!options(args, 0, o, rest) || !has(o, {"spv", "hlsl", "out", "glslang", "spirv-val"})) return 2;
    const std::string hlsl = o["hlsl"], out = o["out"];
    std::string text;
    bool done = false;
    if (int rc = hlslOf(o["spv"], hlsl, out, true, text, done); done) return rc;
    // t# and u# registers map to binding #, register spaces to descriptor sets (d3d12/README's recipe).
    const std::vector<std::string> flags = {
        "--quiet",      "-D",    "-V", "-e",      "main", "-S",    "comp", "--target-env", "vulkan1.1",
        "--hlsl-iomap", "--stb", "0",  "--suavb", "0",    "--scb", "200",  "--amb"};
    KernelCache cache(get(o, "cache"), "hlsl-round-trip", out);
    Sha256 key;
    key.field("ripple-embed hlsl-round-trip 1");
    key.field(o["tools-version"]);
    addToolStamp(key, o["glslang"]);
    addToolStamp(key, o["spirv-val"]);
    for (const std::string& flag : flags) key.field(flag);
    key.field(text);
    std::vector<std::string> compile = {o["glslang"]};
    compile.insert(compile.end(), flags.begin(), flags.end());
    compile.insert(compile.end(), {hlsl, "-o", out});
    return cachedStep(cache, key.hex(), out, hlsl,
                      {{compile, "glslang's HLSL front end rejected " + hlsl},
                       {{o["spirv-val"], "--target-env", "vulkan1.1", out},
                        "spirv-val rejected " + out + ", compiled from " + hlsl}});
}

// dxbc --spv IN --hlsl OUT --out OUT --name VARIANT --compiler P --kind fxc|vkd3d --compiler-version V
//      [--cache DIR]
// An empty OUT for a variant with no D3D12 form. A variant the compiler rejects fails the build, naming it,
// with the compiler's messages and the HLSL's first lines. The key: the HLSL, the compiler (with vkd3d, also
// the version it reports now, which names its glue's source) and its flags.
int dxbcStep(const std::vector<std::string>& args) {
    std::map<std::string, std::string> o;
    std::vector<std::string> rest;
    if (!options(args, 0, o, rest) ||
        !has(o, {"spv", "hlsl", "out", "name", "compiler", "kind", "compiler-version"}))
        return 2;
    const std::string hlsl = o["hlsl"], out = o["out"], kind = o["kind"];
    if (kind != "fxc" && kind != "vkd3d") return fail("--kind is fxc or vkd3d, not " + kind), 2;
    std::string text;
    bool done = false;
    if (int rc = hlslOf(o["spv"], hlsl, out, false, text, done); done) return rc;
    KernelCache cache(get(o, "cache"), "dxbc", o["name"]);
    Sha256 key;
    key.field("ripple-embed dxbc 1 cs_5_1 main");
    key.field(kind);
    key.field(o["compiler-version"]);
    addToolStamp(key, o["compiler"]);
    if (kind == "vkd3d") { // the glue and vkd3d-shader live beside the command: it names both
        const std::string versionLog = out + ".version";
        std::string version;
        if (runProgram({o["compiler"], "--version"}, versionLog) != 0 || !readBytes(versionLog, version))
            return removeAll({versionLog}), fail(o["compiler"] + " --version failed"), 1;
        removeAll({versionLog});
        key.field(version);
    }
    key.field(text);
    const std::vector<std::string> compile =
        kind == "fxc" ? std::vector<std::string>{o["compiler"], "/nologo", "/T",  "cs_5_1", "/E",
                                                 "main",        "/O3",     "/Fo", out,      hlsl}
                      : std::vector<std::string>{o["compiler"], hlsl, out, o["name"]};
    return cachedStep(cache, key.hex(), out, hlsl,
                      {{compile, o["compiler-version"] + " rejected the D3D12 kernel variant " + o["name"]}});
}

} // namespace ripple_embed
