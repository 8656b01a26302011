#!/bin/bash
# The large-mask suite and its peers on the lent GPU machine, into $OUT
# (issue 17; under 8 minutes). Run from the repository root through the
# device tool, carrying .deps-carry with the Debian packages the build
# needs that the machine lacks: cmocka, libpng and libvkfft-dev (VkFFT's
# header; `cd .deps-carry && apt-get download libvkfft-dev` on this
# machine). Builds, then scripts/gpu-step-large.sh.
exec "$(dirname "$0")/gpu-session.sh" large
