# Sourced (not run) by the GPU machine's scripts (gpu-session.sh,
# gpu-s5.sh, gpu-s10.sh): register the NVIDIA ICD beside PoCL (the
# driver ships OpenCL without an ICD file), unpack the carried debs of
# .deps-carry (cmocka, VkFFT) into /tmp/carry (never into /), and point
# the build and the loader at them. Sets D (the unpacked root) and L (its
# library folder).
mkdir -p /tmp/v
echo libnvidia-opencl.so.1 > /tmp/v/nvidia.icd
cp /etc/OpenCL/vendors/pocl.icd /tmp/v/ 2>/dev/null
export OCL_ICD_VENDORS=/tmp/v
D=/tmp/carry
mkdir -p $D
for f in .deps-carry/*.deb; do dpkg -x "$f" $D; done
L=$D/usr/lib/x86_64-linux-gnu
export CMOCKA_CFLAGS="-I$D/usr/include" CMOCKA_LIBS="-L$L -lcmocka -Wl,-rpath,$L"
export C_INCLUDE_PATH=$D/usr/include LIBRARY_PATH=$L LD_LIBRARY_PATH=$L
