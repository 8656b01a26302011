exec bench/gpu-run.sh
