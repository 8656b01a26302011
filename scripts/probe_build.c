/* Probe: build one clconv kernel the way the host does (cl/common.clh, then
 * cl/<stem>.cl) on the first device of a given type, print the build log
 * and write the program binary (PTX text on NVIDIA). With
 * -cl-nv-verbose in the options, NVIDIA's log gives registers and spills:
 * the compiler's resource report asked for by bench/PERF.md.
 * Build: cc -std=c11 scripts/probe_build.c -lOpenCL -o build/probe_build
 * Usage: build/probe_build gpu|cpu STEM "OPTIONS" OUT.bin */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "probe_build: cannot open %s\n", path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (!b || fread(b, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "probe_build: cannot read %s\n", path);
        exit(1);
    }
    b[n] = '\0';
    fclose(f);
    return b;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: probe_build gpu|cpu STEM OPTIONS OUT.bin\n");
        return 2;
    }
    const cl_device_type want =
        strcmp(argv[1], "cpu") == 0 ? CL_DEVICE_TYPE_CPU : CL_DEVICE_TYPE_GPU;
    cl_platform_id plats[8];
    cl_uint np = 0;
    cl_device_id dev = NULL;
    if (clGetPlatformIDs(8, plats, &np) != CL_SUCCESS)
        return 1;
    for (cl_uint p = 0; p < np && !dev; ++p)
        if (clGetDeviceIDs(plats[p], want, 1, &dev, NULL) != CL_SUCCESS)
            dev = NULL;
    if (!dev) {
        fprintf(stderr, "probe_build: no %s device\n", argv[1]);
        return 1;
    }
    char path[4096];
    snprintf(path, sizeof path, "cl/%s.cl", argv[2]);
    const char *parts[4] = {slurp("cl/dtype.clh"), slurp("cl/common.clh"),
                            "\n#line 1\n", slurp(path)};
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "probe_build: clCreateContext failed: %d\n", err);
        return 1;
    }
    cl_program prog = clCreateProgramWithSource(ctx, 4, parts, NULL, &err);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "probe_build: clCreateProgramWithSource failed: %d\n",
                err);
        return 1;
    }
    cl_int built = clBuildProgram(prog, 1, &dev, argv[3], NULL, NULL);
    size_t n = 0;
    clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
    char *log = malloc(n + 1);
    if (log && clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, n, log,
                                     NULL) == CL_SUCCESS) {
        log[n] = '\0';
        printf("--- build log of %s (%s) ---\n%s\n--- end ---\n", argv[2],
               built == CL_SUCCESS ? "built" : "FAILED", log);
    }
    if (built != CL_SUCCESS)
        return 1;
    size_t size = 0;
    unsigned char *bin = NULL;
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size,
                         NULL) == CL_SUCCESS &&
        (bin = malloc(size)) != NULL &&
        clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) ==
            CL_SUCCESS) {
        FILE *f = fopen(argv[4], "wb");
        /* PTX ends in a NUL byte: leave it out. */
        if (size && bin[size - 1] == '\0')
            --size;
        if (!f || fwrite(bin, 1, size, f) != size || fclose(f) != 0) {
            fprintf(stderr, "probe_build: cannot write %s\n", argv[4]);
            return 1;
        }
    }
    return 0;
}
