#!/bin/sh
# One problem over two devices: PoCL exposes two CPU devices
# (POCL_DEVICES="pthread pthread"), and the split tests (test_split) run
# over both. Skipped where PoCL is not installed.
# Usage: test/multi_device.sh build/clconv
set -u
CLI=${1:-build/clconv}
BUILD=$(dirname "$CLI")
if ! POCL_DEVICES="pthread pthread" "$CLI" devices 2>/dev/null | grep -c pthread | grep -q '^[2-9]'; then
    echo "SKIP multi_device.sh: PoCL does not expose two pthread devices here"
    exit 0
fi
POCL_DEVICES="pthread pthread" CLCONV_DEVICE=pthread "$BUILD/test_split"
