/* Probe: what CL_KERNEL_WORK_GROUP_SIZE does each device report for a
 * trivial kernel under different build options, and does a launch of the
 * device's maximum work-group size succeed anyway? Evidence for the
 * "unsupported: CL_KERNEL_WORK_GROUP_SIZE" rows (bench/PERF.md).
 * Build: cc -std=c11 scripts/probe_wg.c -lOpenCL -o build/probe_wg */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>

static const char *src =
    "__kernel void k(__global float *p) { p[get_global_id(0)] = 1.0f; }\n"
    "__kernel __attribute__((reqd_work_group_size(1024,1,1)))\n"
    "void r(__global float *p) { p[get_global_id(0)] = 2.0f; }\n";

int main(void)
{
    cl_platform_id plats[8];
    cl_uint np = 0;
    if (clGetPlatformIDs(8, plats, &np) != CL_SUCCESS)
        return 1;
    const char *opts[] = {"", "-cl-std=CL1.2", "-cl-nv-maxrregcount=32",
                          "-cl-std=CL1.2 -cl-nv-opt-level=3"};
    for (cl_uint p = 0; p < np; ++p) {
        cl_device_id dev;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 1, &dev, NULL))
            continue;
        char name[256];
        size_t maxwg = 0;
        clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL);
        clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof maxwg,
                        &maxwg, NULL);
        cl_int err;
        cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
        cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
        cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4 * 4096, NULL, &err);
        for (size_t o = 0; o < sizeof opts / sizeof *opts; ++o) {
            cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
            if (clBuildProgram(prog, 1, &dev, opts[o], NULL, NULL)) {
                printf("%s [%s]: build failed\n", name, opts[o]);
                clReleaseProgram(prog);
                continue;
            }
            const char *kn[2] = {"k", "r"};
            for (int i = 0; i < 2; ++i) {
                cl_kernel k = clCreateKernel(prog, kn[i], &err);
                size_t kwg = 0, g = 4096, l = 1024;
                clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_WORK_GROUP_SIZE,
                                         sizeof kwg, &kwg, NULL);
                clSetKernelArg(k, 0, sizeof buf, &buf);
                err = clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, NULL);
                cl_int fin = clFinish(q);
                printf("%s [%s] kernel %s: CL_KERNEL_WORK_GROUP_SIZE %zu "
                       "(device max %zu); launch of 1024: enqueue %d finish %d\n",
                       name, opts[o], kn[i], kwg, maxwg, err, fin);
                clReleaseKernel(k);
            }
            clReleaseProgram(prog);
        }
        clReleaseMemObject(buf);
        clReleaseCommandQueue(q);
        clReleaseContext(ctx);
    }
    return 0;
}
