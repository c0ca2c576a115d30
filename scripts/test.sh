#!/usr/bin/env bash
# The test command: install dependencies, then build and run every test in the `dev`
# preset (Debug, -Werror), then again under AddressSanitizer + UBSan (`asan` preset).
# QGPU_SKIP_ASAN=1 skips the sanitizer pass. Exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/install-deps.sh

# configure, build and test one CMake preset, timing the whole.
test_preset() {
  local preset=$1 start=$SECONDS
  echo "== test.sh: preset $preset"
  cmake --preset "$preset"
  cmake --build --preset "$preset"
  ctest --preset "$preset" --output-on-failure -j2
  echo "== test.sh: preset $preset passed in $((SECONDS - start))s"
}

test_preset dev
if [ "${QGPU_SKIP_ASAN:-0}" = 1 ]; then
  echo "== test.sh: asan skipped (QGPU_SKIP_ASAN=1)"
else
  test_preset asan
fi
echo "== test.sh: all passed"
