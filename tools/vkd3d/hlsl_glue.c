// SPDX-License-Identifier: MIT
// Test-only (tools/vkd3d-tool.sh): HLSL to DXBC through vkd3d-shader, as D3DCompile does on Windows. The D3D12
// back-end loads this library on Linux and calls ripple_hlsl_to_dxbc() alone, so ripple includes no vkd3d
// header. Returns vkd3d's result (0: success); *code and *messages are freed with ripple_hlsl_free().
#include <vkd3d_shader.h>

#include <stdlib.h>
#include <string.h>

/* vkd3d-shader 2.1 does not know the storage class 'globallycoherent' (docs/D3D12.md): blanked here, in a copy.
 * Over Vulkan its UAVs are then coherent within a workgroup only; ripple's kernels that need more (chained
 * scans) are checked by the d3d12-real tests on lavapipe, where all memory is coherent, and by nothing else. */
static char* without_globallycoherent(const char* source, size_t length) {
    static const char word[] = "globallycoherent";
    char* copy = malloc(length + 1);
    if (!copy) return NULL;
    memcpy(copy, source, length);
    copy[length] = 0;
    for (char* p = strstr(copy, word); p; p = strstr(p, word)) memset(p, ' ', sizeof word - 1);
    return copy;
}

__attribute__((visibility("default"))) int ripple_hlsl_to_dxbc(const char* source, size_t length, const char* name,
                                                              const char* entry, const char* profile, void** code,
                                                              size_t* size, char** messages) {
    struct vkd3d_shader_hlsl_source_info hlsl = {.type = VKD3D_SHADER_STRUCTURE_TYPE_HLSL_SOURCE_INFO};
    struct vkd3d_shader_compile_info info = {.type = VKD3D_SHADER_STRUCTURE_TYPE_COMPILE_INFO};
    struct vkd3d_shader_code out = {0};
    char* copy = without_globallycoherent(source, length);
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
    const int result = vkd3d_shader_compile(&info, &out, messages);
    free(copy);
    *code = (void*)out.code;
    *size = out.size;
    return result;
}

__attribute__((visibility("default"))) void ripple_hlsl_free(void* code, char* messages) {
    struct vkd3d_shader_code c = {code, 0};
    vkd3d_shader_free_shader_code(&c);
    vkd3d_shader_free_messages(messages);
}
