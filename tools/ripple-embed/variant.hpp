// SPDX-License-Identifier: MIT
// One kernel variant as ripple-embed reads it (variant.cpp): its SPIR-V reflected into what ripple binds,
// pushes and needs, its HLSL for the D3D12 path and its bytecode; and the file and C++ helpers that the
// registry (ripple_embed.cpp) and users' kernels (user_kernels.cpp) share.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ripple_embed {

struct Variant {
    std::string name;
    std::vector<uint32_t> words;
    uint32_t localSize[3] = {1, 1, 1};
    size_t pushBytes = 0;
    std::vector<std::pair<uint32_t, bool>> bindings; // binding, read-only
    // The binding of the uniform params block (small-device variants, glsl/include/ripple/common.glsl), or
    // -1; it is also in `bindings`, read-only.
    int uniformBinding = -1;
    struct Block { // per binding, for users' kernels (kernel.hpp)
        uint32_t binding;
        bool readOnly, writeOnly;
        size_t minimumBytes; // the block's size with its runtime array empty
        std::string name;
    };
    std::vector<Block> blocks;
    uint32_t features = 0;
    std::string hlsl;               // for the D3D12 path; empty when the variant has no D3D12 form
    std::vector<uint32_t> embedded; // the words to embed (debug stripped), or the round trip's
    std::vector<uint32_t> dxbc;     // the D3D12 bytecode compiled from `hlsl` (registry --dxbc)
};

// Prints "ripple-embed: <what>" to stderr; false.
bool fail(const std::string& what);

// Fills v's interface (workgroup size, push constants, bindings and blocks, features) from v.words;
// false, naming v, where the SPIR-V cannot be read.
bool reflect(Variant& v);

// The D3D12 path runs the portable variants (no optional device feature) as HLSL shader model 5.1 with an
// explicit register layout: storage buffer binding N as tN (read-only) or uN (written) in space 0, push
// constants as root constants at b0. Returns false if SPIRV-Cross cannot translate it.
bool translateHlsl(Variant& v);

// A C++ string literal of `text`, in raw pieces small enough for every compiler.
std::string literal(const std::string& text);

// A file of whole 32-bit words.
bool readSpirv(const std::string& path, std::vector<uint32_t>& words);

// Writes to `out` the packed bytes of `words` as a uint32_t array named `array` (kernels/spirv_pack.hpp:
// the SPIR-V form, or with `dxbc` one varint a word), and sets `init` to the PackedSpirv initializer naming
// it. False, with a message naming `array`, where SPIR-V's instructions do not tile its words.
bool packedArray(std::ostream& out, const std::string& array, const std::vector<uint32_t>& words,
                 std::string& init, bool dxbc = false);

// The same for a variant stored as copies from its kernel's base variant (kernels/variant_delta.hpp):
// `baseArray`, already written by packedArray from `baseWords` (with the same `dxbc`). Checks that the
// tokens rebuild the variant's bytes.
bool deltaArray(std::ostream& out, const std::string& array, const std::vector<uint32_t>& words,
                const std::string& baseArray, const std::vector<uint32_t>& baseWords, std::string& init,
                bool dxbc = false);

// Writes `text`'s bytes as a uint32_t array named `array`, as they are (no `baseText`) or as copies from
// `baseText`'s bytes, already written as `baseArray` (kernels/variant_delta.hpp), and sets `init` to the
// PackedText initializer naming it. Checks that the copies rebuild the text.
bool textArray(std::ostream& out, const std::string& array, const std::string& text,
               const std::string& baseArray, const std::string* baseText, std::string& init);

// Reads a LIST file's lines of three fields.
bool readList(const std::string& path, std::vector<std::array<std::string, 3>>& lines);

// Replaces the file's contents with `text`.
bool writeFile(const std::string& path, const std::string& text);

// Whether `words`, another form of variant `v` (`how` it was made), has v's bindings, push-constant size
// and workgroup size; fails naming the variant otherwise.
bool sameInterface(const Variant& v, const std::vector<uint32_t>& words, const std::string& how);

// v's DXBC from its file in `paths` (the dxbc step, build_steps.cpp): present exactly where v has HLSL, a
// DXBC container ("DXBC", its size in the header) of whole 32-bit words; variants with no D3D12 form may have
// no file listed.
bool readDxbc(Variant& v, const std::map<std::string, std::string>& paths);

// DXBC_LIST (--dxbc): "<variant> <its DXBC, an empty file where it has no D3D12 form>" per line.
bool readDxbcList(const std::string& path, std::map<std::string, std::string>& paths);

// ripple-embed user (user_kernels.cpp): a user's kernels for ripple_add_kernels; an exit status.
int user(const std::string& listPath, const std::string& hppPath, const std::string& cppPath,
         const std::string& ns, bool withHlsl, const std::string& roundTripList, const std::string& dxbcList);

} // namespace ripple_embed
