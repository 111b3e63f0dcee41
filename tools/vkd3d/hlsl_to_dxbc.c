// SPDX-License-Identifier: MIT
// ripple-hlsl-dxbc: the build's HLSL compiler on a Linux host (ripple-embed dxbc): one kernel variant's
// HLSL to shader-model-5.1 DXBC through the glue (hlsl_glue.c), as D3DCompile would on Windows.
//   ripple-hlsl-dxbc IN.hlsl OUT.dxbc NAME    exit 0 with OUT written whole, else 1 with the compiler's
//                                            messages on stderr and no OUT
//   ripple-hlsl-dxbc --version               "vkd3d-shader <version>, ripple glue <hash>"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int ripple_hlsl_to_dxbc(const char* source, size_t length, const char* name, const char* entry,
                        const char* profile, void** code, size_t* size, char** messages);
void ripple_hlsl_free(void* code, char* messages);
const char* ripple_hlsl_compiler_version(void);

static char* read_all(const char* path, size_t* size) {
    FILE* f = fopen(path, "rb");
    if (!f) return NULL;
    size_t room = 1 << 16, used = 0;
    char* data = malloc(room);
    for (size_t n; data && (n = fread(data + used, 1, room - used, f)) > 0;) {
        used += n;
        if (used == room) {
            char* more = realloc(data, room *= 2);
            if (!more) free(data);
            data = more;
        }
    }
    const int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(data);
        return NULL;
    }
    *size = used;
    return data;
}

int main(int argc, char** argv) {
    if (argc == 2 && strcmp(argv[1], "--version") == 0) {
        printf("%s\n", ripple_hlsl_compiler_version());
        return 0;
    }
    if (argc != 4) {
        fprintf(stderr, "usage: ripple-hlsl-dxbc IN.hlsl OUT.dxbc NAME | ripple-hlsl-dxbc --version\n");
        return 2;
    }
    size_t length = 0;
    char* source = read_all(argv[1], &length);
    if (!source) {
        fprintf(stderr, "ripple-hlsl-dxbc: cannot read %s\n", argv[1]);
        return 1;
    }
    void* code = NULL;
    size_t size = 0;
    char* messages = NULL;
    const int result =
        ripple_hlsl_to_dxbc(source, length, argv[3], "main", "cs_5_1", &code, &size, &messages);
    free(source);
    if (result != 0 || !code || !size) {
        fprintf(stderr, "ripple-hlsl-dxbc: vkd3d-shader rejected %s (%d):\n%s\n", argv[3], result,
                messages ? messages : "");
        ripple_hlsl_free(code, messages);
        return 1;
    }
    // Written under another name, then renamed: an interrupted build never leaves a partial OUT.
    char tmp[4200];
    int ok = snprintf(tmp, sizeof tmp, "%s.%ld.tmp", argv[2], (long)getpid()) < (int)sizeof tmp;
    FILE* f = ok ? fopen(tmp, "wb") : NULL;
    ok = f && fwrite(code, 1, size, f) == size;
    if (f && fclose(f) != 0) ok = 0;
    ok = ok && rename(tmp, argv[2]) == 0;
    if (!ok) {
        remove(tmp);
        fprintf(stderr, "ripple-hlsl-dxbc: cannot write %s\n", argv[2]);
    }
    ripple_hlsl_free(code, messages);
    return ok ? 0 : 1;
}
