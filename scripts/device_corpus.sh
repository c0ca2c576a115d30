#!/usr/bin/env bash
# Checks the whole CUDA corpus on a real GPU: for the device machine (an H200, sm_90).
#   run: bash scripts/device_corpus.sh        (device tool: timeout_s 540, nothing to carry)
# Builds one nvcc driver per kernels/*.cu, runs every `// run:` case on the GPU and compares
# with the committed kernels/expected/*.json (scripts/gen_expected.py --nvcc); files that use
# warp functions or warpSize are skipped (4 lanes on the machine, 32 on a GPU). Writes
#   $OUT/corpus_nvcc_report.md   Markdown report: kernel, cases, result, nvcc version, GPU
#   $OUT/corpus_nvcc.log         the full console output
# ($OUT defaults to build/device_corpus off the device machine.) The session commits the
# report afterwards. Exit status: gen_expected.py's (0 all match, 1 a failure or mismatch,
# 2 no GPU found), or 124 when CORPUS_TIME_LIMIT (seconds, default 480) runs out.
set -u -o pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-build/device_corpus}"
LIMIT="${CORPUS_TIME_LIMIT:-480}"
ARCH="${CORPUS_ARCH:-sm_90}"
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
{
  echo "== $(date -u '+%F %T UTC') $(uname -m)"
  nvidia-smi -L 2>&1 || echo "nvidia-smi failed"
  (command -v nvcc || ls /usr/local/cuda/bin/nvcc) 2>&1
} | tee "$OUT/corpus_nvcc.log"
timeout "$LIMIT" python3 scripts/gen_expected.py --nvcc --require-gpu --arch "$ARCH" \
  --jobs "$(nproc)" --report "$OUT/corpus_nvcc_report.md" 2>&1 | tee -a "$OUT/corpus_nvcc.log"
rc=$?
if [ "$rc" = 124 ]; then
  echo "device_corpus: stopped after ${LIMIT}s; the report holds the kernels done by then" \
    | tee -a "$OUT/corpus_nvcc.log"
  printf '\n**Stopped after %ss (CORPUS_TIME_LIMIT): the table is incomplete.**\n' "$LIMIT" \
    >>"$OUT/corpus_nvcc_report.md"
fi
echo "device_corpus: exit $rc; report $OUT/corpus_nvcc_report.md"
exit "$rc"
