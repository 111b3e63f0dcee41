// SPDX-License-Identifier: MIT
// Test-only (tools/vkd3d-tool.sh): HLSL to DXBC through vkd3d-shader, as D3DCompile does on Windows. The
// D3D12 back-end loads this library on Linux and calls ripple_hlsl_to_dxbc() alone, so ripple includes no
// vkd3d header. Returns vkd3d's result (0: success); *code and *messages are freed with ripple_hlsl_free().
#include <vkd3d_shader.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* vkd3d-shader 2.1 does not know the storage class 'globallycoherent' (docs/D3D12.md): blanked here, in a
 * copy, and put back into the bytecode (restore_globally_coherent) for the UAV registers it was on, so that
 * the DXBC means what fxc's would on a real GPU. *coherent gets one bit per register uN, N < 64. */
static void blank_globallycoherent(char* copy, uint64_t* coherent) {
    static const char word[] = "globallycoherent";
    *coherent = 0;
    for (char* p = strstr(copy, word); p; p = strstr(p, word)) {
        memset(p, ' ', sizeof word - 1);
        /* SPIRV-Cross writes one declaration a line: "... name : register(uN, space0);" */
        const char* end = strchr(p, '\n');
        const char* reg = strstr(p, "register(u");
        if (reg && (!end || reg < end)) {
            const unsigned long n = strtoul(reg + 10, NULL, 10);
            if (n < 64) *coherent |= 1ull << n;
        }
    }
}

static int starts_loop(const char* p) {
    return strncmp(p, "for (", 5) == 0 || strncmp(p, "while (", 7) == 0 ||
           (strncmp(p, "do", 2) == 0 && (p[2] == '\n' || p[2] == ' ' || p[2] == '{' || p[2] == '\r'));
}

/* vkd3d-shader 2.1 unrolls every loop of constant bounds, [unroll] or not, and its compile time grows steeply
 * with the unrolled code (docs/D3D12.md: topk_chunk 45 s, topk_lane's K 16 and 32 variants over 5 minutes).
 * So for vkd3d every loop is a [loop]: the same program, compiled in a second or two, with the unrolling left
 * to the driver's compiler. fxc (a Windows build host) gets SPIRV-Cross's HLSL as it is. Returns a new
 * string (*length updated), NULL when out of memory. */
static char* vkd3d_source(const char* source, size_t* length, uint64_t* coherent) {
    size_t loops = 0;
    for (const char* p = source; p < source + *length; ++p)
        if ((p == source || p[-1] == '\n' || p[-1] == ' ') && starts_loop(p)) ++loops;
    char* out = malloc(*length + 8 * loops + 1);
    if (!out) return NULL;
    size_t n = 0;
    int attributed = 0; /* the previous line was a loop attribute */
    for (const char* line = source; line < source + *length;) {
        const char* eol = memchr(line, '\n', (size_t)(source + *length - line));
        const size_t len = eol ? (size_t)(eol - line) + 1 : (size_t)(source + *length - line);
        const char* text = line;
        while (text < line + len && (*text == ' ' || *text == '\t')) ++text;
        const size_t indent = (size_t)(text - line);
        if (strncmp(text, "[unroll]", 8) == 0) {
            memcpy(out + n, line, indent);
            n += indent;
            memcpy(out + n, "[loop]", 6);
            n += 6;
            memcpy(out + n, text + 8, len - indent - 8);
            n += len - indent - 8;
            attributed = 1;
        } else if (starts_loop(text) && !attributed) {
            memcpy(out + n, line, indent);
            n += indent;
            memcpy(out + n, "[loop] ", 7);
            n += 7;
            memcpy(out + n, text, len - indent);
            n += len - indent;
        } else {
            memcpy(out + n, line, len);
            n += len;
            if (text < line + len && *text != '\n' && *text != '\r') attributed = *text == '[';
        }
        line += len;
    }
    out[n] = 0;
    *length = n;
    blank_globallycoherent(out, coherent);
    return out;
}

/* Sets D3D11_SB_GLOBALLY_COHERENT_ACCESS (bit 16 of the opcode token) on the dcl_uav_raw/_structured/_typed
 * declarations of the registers in `coherent`: shader model 5.1's operand holds (id, lower, upper) and the
 * register is the lower bound; 5.0's holds the register alone. Returns the declarations changed. */
static unsigned restore_globally_coherent(uint32_t* t, size_t count, uint64_t coherent) {
    unsigned changed = 0;
    if (!coherent || count < 2 || t[1] > count) return 0;
    for (size_t i = 2; i < t[1];) {
        const uint32_t op = t[i] & 0x7ff;
        size_t length = (t[i] >> 24) & 0x7f;
        if (op == 0x35 && i + 1 < t[1]) length = t[i + 1]; /* customdata: its length follows */
        if (!length || i + length > t[1]) break;
        if (op >= 0x9c && op <= 0x9e && length >= 3) { /* dcl_uav_typed, _raw, _structured */
            const uint32_t dims = (t[i + 1] >> 20) & 3;
            const uint32_t reg = dims == 3 && length >= 5 ? t[i + 3] : t[i + 2];
            if (reg < 64 && (coherent >> reg & 1) && !(t[i] & 0x10000)) {
                t[i] |= 0x10000;
                ++changed;
            }
        }
        i += length;
    }
    return changed;
}

/* vkd3d 1.2's DXBC-to-SPIR-V (Debian 12's runtime) turns "mov r0.yzw, r1.xyzw" (temps on both sides, a
 * partial write mask, the identity swizzle) into an OpCopyMemory of the whole register, overwriting the
 * components outside the mask (docs/D3D12.md). vkd3d-shader 2.1 writes such moves. The same move with the
 * swizzle's unused lanes repeating a used one ("r1.yyzw") means the same and is translated per component.
 * Returns the moves changed. */
static unsigned repeat_unused_lanes(uint32_t* t, size_t count) {
    unsigned changed = 0;
    if (count < 2 || t[1] > count) return 0;
    for (size_t i = 2; i < t[1];) {
        const uint32_t op = t[i] & 0x7ff;
        size_t length = (t[i] >> 24) & 0x7f;
        if (op == 0x35 && i + 1 < t[1]) length = t[i + 1]; /* customdata: its length follows */
        if (!length || i + length > t[1]) break;
        if (op == 0x36 && length == 5 && !(t[i] >> 31)) { /* mov, no extended opcode token */
            const uint32_t d = t[i + 1], s = t[i + 3];
            /* 4 components; temp (type 0); one immediate index; no extended operand (modifiers) */
            const int dst_temp =
                (d & 3) == 2 && ((d >> 12) & 0xff) == 0 && ((d >> 20) & 0x1ff) == 1 && !(d >> 31);
            const int src_temp =
                (s & 3) == 2 && ((s >> 12) & 0xff) == 0 && ((s >> 20) & 0x1ff) == 1 && !(s >> 31);
            const uint32_t mask = (d >> 4) & 0xf;
            if (dst_temp && src_temp && ((d >> 2) & 3) == 0 && ((s >> 2) & 3) == 1 &&
                ((s >> 4) & 0xff) == 0xe4 && mask != 0xf && mask != 0) {
                uint32_t first = 0, swizzle = 0;
                while (!(mask >> first & 1)) ++first;
                for (uint32_t k = 0; k < 4; ++k) swizzle |= ((mask >> k & 1) ? k : first) << (2 * k);
                t[i + 3] = (s & ~(0xffu << 4)) | (swizzle << 4);
                ++changed;
            }
        }
        i += length;
    }
    return changed;
}

/* The DXBC in *code with repeat_unused_lanes() and restore_globally_coherent() applied to its shader program
 * section, re-serialised (vkd3d checks the container's checksum). */
static int patch_program(struct vkd3d_shader_code* code, uint64_t coherent) {
    /* The program's section: SHEX (shader model 5) or SHDR (4, and vkd3d-shader 2.1's 5.1). */
    const uint32_t shex = 'S' | 'H' << 8 | 'E' << 16 | (uint32_t)'X' << 24;
    const uint32_t shdr = 'S' | 'H' << 8 | 'D' << 16 | (uint32_t)'R' << 24;
    struct vkd3d_shader_dxbc_desc desc;
    int result = vkd3d_shader_parse_dxbc(code, 0, &desc, NULL);
    if (result) return result;
    struct vkd3d_shader_dxbc_section_desc* sections = calloc(desc.section_count, sizeof *sections);
    uint32_t* tokens = NULL;
    unsigned changed = 0;
    result = sections ? 0 : VKD3D_ERROR_OUT_OF_MEMORY;
    for (size_t i = 0; !result && i < desc.section_count; ++i) {
        sections[i] = desc.sections[i];
        if ((desc.sections[i].tag != shex && desc.sections[i].tag != shdr) || tokens) continue;
        if (!(tokens = malloc(desc.sections[i].data.size + 4))) { /* + 4: never malloc(0) */
            result = VKD3D_ERROR_OUT_OF_MEMORY;
            break;
        }
        memcpy(tokens, desc.sections[i].data.code, desc.sections[i].data.size);
        changed = repeat_unused_lanes(tokens, desc.sections[i].data.size / 4) +
                  restore_globally_coherent(tokens, desc.sections[i].data.size / 4, coherent);
        sections[i].data.code = tokens;
    }
    if (!result && changed) {
        struct vkd3d_shader_code patched = {0};
        result = vkd3d_shader_serialize_dxbc(desc.section_count, sections, &patched, NULL);
        if (!result) {
            vkd3d_shader_free_shader_code(code);
            *code = patched;
        }
    }
    free(tokens);
    free(sections);
    vkd3d_shader_free_dxbc(&desc);
    return result;
}

/* A DXBC cache on disk between processes (RIPPLE_VKD3D_DXBC_CACHE names a directory; unset: none).
 * vkd3d-shader 2.1 takes up to minutes for kernels with unrolled loops (docs/D3D12.md), and every test
 * process, every ripple-run of the conformance cases, compiles afresh. Keyed by FNV-1a 64 over the glue's
 * source (its hash, from tools/vkd3d-tool.sh), vkd3d's version, profile, entry and HLSL; a file is written
 * under a unique name, then renamed, so that parallel tests never read a partial one. Test-only, like this
 * library. */
#ifndef RIPPLE_GLUE_SOURCE_HASH
#define RIPPLE_GLUE_SOURCE_HASH __DATE__ " " __TIME__
#endif

static uint64_t fnv1a(uint64_t h, const void* data, size_t size) {
    const unsigned char* p = data;
    for (size_t i = 0; i < size; ++i) h = (h ^ p[i]) * 1099511628211ull;
    return (h ^ 0xff) * 1099511628211ull; /* a separator between the key's parts */
}

static int cache_path(char* path, size_t room, const char* source, size_t length, const char* entry,
                      const char* profile) {
    const char* dir = getenv("RIPPLE_VKD3D_DXBC_CACHE");
    if (!dir || !*dir) return 0;
    uint64_t h = 14695981039346656037ull;
    h = fnv1a(h, RIPPLE_GLUE_SOURCE_HASH, strlen(RIPPLE_GLUE_SOURCE_HASH));
    const char* version = vkd3d_shader_get_version(NULL, NULL);
    h = fnv1a(h, version, strlen(version));
    h = fnv1a(h, profile, strlen(profile));
    h = fnv1a(h, entry, strlen(entry));
    h = fnv1a(h, source, length);
    const int n = snprintf(path, room, "%s/%016llx.dxbc", dir, (unsigned long long)h);
    return n > 0 && (size_t)n < room;
}

/* The cached bytecode in a malloc'd buffer (vkd3d_shader_free_shader_code() frees it with free()), or 0. */
static int cache_read(const char* path, struct vkd3d_shader_code* out) {
    FILE* f = fopen(path, "rb");
    if (!f) return 0;
    long size = -1;
    if (fseek(f, 0, SEEK_END) == 0) size = ftell(f);
    void* code = size > 0 && fseek(f, 0, SEEK_SET) == 0 ? malloc((size_t)size) : NULL;
    const int ok = code && fread(code, 1, (size_t)size, f) == (size_t)size;
    fclose(f);
    if (!ok) {
        free(code);
        return 0;
    }
    out->code = code;
    out->size = (size_t)size;
    return 1;
}

static void cache_write(const char* path, const struct vkd3d_shader_code* code) {
    char tmp[4200];
    const int n = snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    if (n <= 0 || (size_t)n >= sizeof tmp) return;
    FILE* f = fopen(tmp, "wb");
    if (!f) return; /* no cache directory: compiling each time is still right */
    const int ok = fwrite(code->code, 1, code->size, f) == code->size;
    if (fclose(f) == 0 && ok && rename(tmp, path) == 0) return;
    remove(tmp);
}

__attribute__((visibility("default"))) int ripple_hlsl_to_dxbc(const char* source, size_t length,
                                                               const char* name, const char* entry,
                                                               const char* profile, void** code, size_t* size,
                                                               char** messages) {
    struct vkd3d_shader_hlsl_source_info hlsl = {.type = VKD3D_SHADER_STRUCTURE_TYPE_HLSL_SOURCE_INFO};
    struct vkd3d_shader_compile_info info = {.type = VKD3D_SHADER_STRUCTURE_TYPE_COMPILE_INFO};
    struct vkd3d_shader_code out = {0};
    char path[4096];
    const int cached = cache_path(path, sizeof path, source, length, entry, profile);
    *messages = NULL;
    if (cached && cache_read(path, &out)) {
        *code = (void*)out.code;
        *size = out.size;
        return 0;
    }
    uint64_t coherent = 0;
    char* copy = vkd3d_source(source, &length, &coherent);
    if (!copy) return VKD3D_ERROR_OUT_OF_MEMORY;
    hlsl.entry_point = entry;
    hlsl.profile = profile;
    info.next = &hlsl;
    info.source.code = copy;
    info.source.size = length;
    info.source_type = VKD3D_SHADER_SOURCE_HLSL;
    info.target_type = VKD3D_SHADER_TARGET_DXBC_TPF;
    info.log_level = VKD3D_SHADER_LOG_WARNING;
    info.source_name = name;
    int result = vkd3d_shader_compile(&info, &out, messages);
    free(copy);
    if (!result) result = patch_program(&out, coherent);
    if (!result && cached) cache_write(path, &out);
    *code = (void*)out.code;
    *size = out.size;
    return result;
}

/* The compiler's name and version, and the glue's source hash: what the build names and keys its DXBC by. */
__attribute__((visibility("default"))) const char* ripple_hlsl_compiler_version(void) {
    static char text[256];
    if (!text[0])
        snprintf(text, sizeof text, "%s, ripple glue %s", vkd3d_shader_get_version(NULL, NULL),
                 RIPPLE_GLUE_SOURCE_HASH);
    return text;
}

__attribute__((visibility("default"))) void ripple_hlsl_free(void* code, char* messages) {
    struct vkd3d_shader_code c = {code, 0};
    vkd3d_shader_free_shader_code(&c);
    vkd3d_shader_free_messages(messages);
}
