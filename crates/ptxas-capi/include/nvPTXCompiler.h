/*
 * nvPTXCompiler's C API, served by ori-ptxas (crates/ptxas-capi).
 *
 * Names, types, result codes and semantics follow NVIDIA's PTX Compiler
 * API 13.5, so that a program written for NVIDIA's library builds and runs
 * against libnvptxcompiler unchanged. Every function is thread-safe; a
 * handle must not be used by two threads at once.
 */
#ifndef nvPTXCompiler_INCLUDED
#define nvPTXCompiler_INCLUDED

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A compiler holding one PTX program, its logs and its last cubin. */
typedef struct nvPTXCompiler *nvPTXCompilerHandle;

typedef enum {
    NVPTXCOMPILE_SUCCESS = 0,
    NVPTXCOMPILE_ERROR_INVALID_COMPILER_HANDLE = 1,
    NVPTXCOMPILE_ERROR_INVALID_INPUT = 2,
    NVPTXCOMPILE_ERROR_COMPILATION_FAILURE = 3,
    NVPTXCOMPILE_ERROR_INTERNAL = 4,
    NVPTXCOMPILE_ERROR_OUT_OF_MEMORY = 5,
    /* The handle has no compiled program yet. */
    NVPTXCOMPILE_ERROR_COMPILER_INVOCATION_INCOMPLETE = 6,
    NVPTXCOMPILE_ERROR_UNSUPPORTED_PTX_VERSION = 7,
    NVPTXCOMPILE_ERROR_UNSUPPORTED_DEVSIDE_SYNC = 8,
    /* The flow callback asked to stop. */
    NVPTXCOMPILE_ERROR_CANCELLED = 9,
    /* A compute_XX target: the PTX was checked, no cubin was made. */
    NVPTXCOMPILE_PARSE_ONLY_SUCCESS = 10,
} nvPTXCompileResult;

/* The CUDA release whose ptxas this compiler follows (13.5). */
nvPTXCompileResult nvPTXCompilerGetVersion(unsigned int *major, unsigned int *minor);

/* The PTX ISA versions read, as {major, minor} rows. */
nvPTXCompileResult nvPTXCompilerGetNumSupportedVersions(int *numVersions);
nvPTXCompileResult nvPTXCompilerGetSupportedVersions(int (*versions)[2]);

/* The SM numbers `--gpu-name` accepts (75 for sm_75, ...). */
nvPTXCompileResult nvPTXCompilerGetNumSupportedArchs(int *numArchs);
nvPTXCompileResult nvPTXCompilerGetSupportedArchs(int *supportedArchs);

/* A compiler for the `ptxCodeLen` bytes at `ptxCode` (copied). */
nvPTXCompileResult nvPTXCompilerCreate(nvPTXCompilerHandle *compiler, size_t ptxCodeLen, const char *ptxCode);

/* Frees the compiler and sets *compiler to NULL. */
nvPTXCompileResult nvPTXCompilerDestroy(nvPTXCompilerHandle *compiler);

/*
 * Compiles with ptxas's command-line options ("--gpu-name=sm_90", "-O3",
 * "-v", ...; without --gpu-name the target is sm_75). `-o` is ignored.
 * Logs accumulate over calls; a failed call keeps the last cubin.
 */
nvPTXCompileResult nvPTXCompilerCompile(nvPTXCompilerHandle compiler, int numCompileOptions,
                                        const char *const *compileOptions);

/* The cubin of the last successful compilation. */
nvPTXCompileResult nvPTXCompilerGetCompiledProgramSize(nvPTXCompilerHandle compiler, size_t *binaryImageSize);
nvPTXCompileResult nvPTXCompilerGetCompiledProgram(nvPTXCompilerHandle compiler, void *binaryImage);

/* Errors, and warnings and `-v` output: sizes count the terminating NUL
 * (0 for an empty log); the log is copied with its NUL. */
nvPTXCompileResult nvPTXCompilerGetErrorLogSize(nvPTXCompilerHandle compiler, size_t *errorLogSize);
nvPTXCompileResult nvPTXCompilerGetErrorLog(nvPTXCompilerHandle compiler, char *errorLog);
nvPTXCompileResult nvPTXCompilerGetInfoLogSize(nvPTXCompilerHandle compiler, size_t *infoLogSize);
nvPTXCompileResult nvPTXCompilerGetInfoLog(nvPTXCompilerHandle compiler, char *infoLog);

/*
 * `callback(payload, NULL)` is asked before compilation and between phases;
 * once it returns 1 the compilation stops with NVPTXCOMPILE_ERROR_CANCELLED.
 */
nvPTXCompileResult nvPTXCompilerSetFlowCallback(nvPTXCompilerHandle compiler, int (*callback)(void *, void *),
                                                void *payload);

#ifdef __cplusplus
}
#endif

#endif /* nvPTXCompiler_INCLUDED */
