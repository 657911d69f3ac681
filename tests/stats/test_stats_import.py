"""Importing benchdoc.stats stays cheap: numpy and scipy load only when a statistic is computed."""

from __future__ import annotations

import subprocess
import sys

PROBE = (
    "import sys, benchdoc.stats, benchdoc.envdiff\n"
    "print(sorted(m for m in ('numpy', 'scipy') if m in sys.modules))\n"
    "benchdoc.stats.summarize([1.0, 2.0])\n"
    "print(sorted(m for m in ('numpy', 'scipy') if m in sys.modules))\n"
)


def test_numpy_and_scipy_load_on_first_use_only() -> None:
    result = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60, check=True)
    before, after = result.stdout.splitlines()
    assert before == "[]"
    assert after == "['numpy', 'scipy']"
