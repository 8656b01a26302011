#!/bin/sh
P=/root/.pyenv/versions/3.11.7/bin/python
S=/work/wt/h-cpu2d/bench/results/2026-11-23-local-2core-cpu2d/vs_cv2.py
for prob in "1920 1080 3 20" "1920 1080 5 10" "1920 1080 9 10" "8192 8192 3 3" "8192 8192 5 3" "8192 8192 9 3"; do
  for v in main new; do
    printf "%s " $v; PYTHONPATH=$(echo /tmp/hcpu/venv-$v/lib/python3*/site-packages) $P $S $prob 2>&1 | tail -1
  done
done
