"""benchmarks/ttft_error.py: a burst's TTFT error parted on one clock, against the simulator in
its own process. The simulator's stamps are the earliest its bytes could have been there, so
the parts the client owns are never negative and add up to its error."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "ttft_error.py"


@pytest.mark.timeout(120)
def test_the_parts_add_up_and_none_the_client_owns_is_negative() -> None:
    proc = subprocess.run([sys.executable, str(SCRIPT), "--streams", "1,16", "--repeats", "1", "--json"],
                          capture_output=True, text=True, timeout=110, check=False)
    assert proc.returncode == 0, proc.stderr
    figures = json.loads(proc.stdout)
    for streams in (1, 16):
        def part(name: str, streams: int = streams) -> float:
            return float(figures[f"{name}_{streams}"])

        assert part("send_ms") + part("to_server_ms") + part("read_ms") == pytest.approx(part("ttft_error_ms"), abs=0.01)
        # The request reached the server after the client stamped it sent (the kernel's stamp
        # falls inside the client's write), and the token was read after its write began.
        assert part("to_server_ms") >= -part("send_ms")
        assert part("read_ms") >= 0.0 and part("ttft_error_ms") >= 0.0
        assert part("server_ttft_ms") >= 0.0 and part("launch_ms") >= 0.0
