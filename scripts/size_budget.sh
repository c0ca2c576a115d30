#!/usr/bin/env bash
# Reports function and file sizes over src/ and tools/ against the budget in STYLE.md
# (median <= 12 lines, p90 <= 50, none over ~80 but an opcode switch or main, files <= 600).
# It only reports: the exit status is always 0. Arguments replace the default folders.
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 0
if ! command -v python3 >/dev/null; then
  echo "size_budget: python3 not found; no report"
  exit 0
fi
python3 scripts/size_budget.py "$@" || echo "size_budget: the report failed (status $?)"
exit 0
