/*
 * A program written for NVIDIA's PTX Compiler API, nothing of ours: reads
 * a PTX file, compiles it with the options given, writes the cubin and
 * prints both logs. usage: compile IN.ptx OUT.cubin [OPTION...]
 * Exit status: the nvPTXCompileResult of nvPTXCompilerCompile (or 100+ for
 * a failure of another call).
 */
#include <stdio.h>
#include <stdlib.h>

#include "nvPTXCompiler.h"

#define CHECK(call)                                                       \
    do {                                                                  \
        nvPTXCompileResult r_ = (call);                                   \
        if (r_ != NVPTXCOMPILE_SUCCESS) {                                 \
            fprintf(stderr, "%s: %d\n", #call, (int)r_);                  \
            return 100 + (int)r_;                                         \
        }                                                                 \
    } while (0)

static int print_log(nvPTXCompilerHandle h, int error) {
    size_t size;
    CHECK(error ? nvPTXCompilerGetErrorLogSize(h, &size) : nvPTXCompilerGetInfoLogSize(h, &size));
    if (size == 0) return 0;
    char *log = malloc(size);
    CHECK(error ? nvPTXCompilerGetErrorLog(h, log) : nvPTXCompilerGetInfoLog(h, log));
    printf("%s log:\n%s", error ? "error" : "info", log);
    free(log);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 3) return 99;
    FILE *in = fopen(argv[1], "rb");
    if (!in) return 98;
    fseek(in, 0, SEEK_END);
    long len = ftell(in);
    fseek(in, 0, SEEK_SET);
    char *ptx = malloc(len);
    if (fread(ptx, 1, len, in) != (size_t)len) return 97;
    fclose(in);

    unsigned major, minor;
    CHECK(nvPTXCompilerGetVersion(&major, &minor));
    printf("version %u.%u\n", major, minor);

    nvPTXCompilerHandle h;
    CHECK(nvPTXCompilerCreate(&h, (size_t)len, ptx));
    nvPTXCompileResult result = nvPTXCompilerCompile(h, argc - 3, (const char *const *)(argv + 3));
    printf("compile %d\n", (int)result);
    if (print_log(h, 1) || print_log(h, 0)) return 96;
    if (result == NVPTXCOMPILE_SUCCESS) {
        size_t size;
        CHECK(nvPTXCompilerGetCompiledProgramSize(h, &size));
        char *image = malloc(size);
        CHECK(nvPTXCompilerGetCompiledProgram(h, image));
        FILE *out = fopen(argv[2], "wb");
        if (!out || fwrite(image, 1, size, out) != size) return 95;
        fclose(out);
        free(image);
    }
    CHECK(nvPTXCompilerDestroy(&h));
    if (h != NULL) return 94;
    free(ptx);
    return (int)result;
}
