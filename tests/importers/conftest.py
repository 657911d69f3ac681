"""Sample files written from the tools' documented formats, and truncated copies of them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

Truncate = Callable[..., tuple[Path, int]]

DATA = Path(__file__).parent / "data"


def sample(name: str) -> Path:
    return DATA / name


@pytest.fixture
def truncated(tmp_path: Path) -> Truncate:
    """``truncated(name, fraction)``: a copy of a sample cut mid-line; returns (path, line of the cut)."""

    def make(name: str, fraction: float = 0.5) -> tuple[Path, int]:
        data = sample(name).read_bytes()
        cut = int(len(data) * fraction)
        while data[cut - 1 : cut] in (b"\n", b" ") or data[cut : cut + 1] == b"\n":
            cut += 1  # a cut right at a line end would leave a complete, shorter file
        path = tmp_path / name
        path.write_bytes(data[:cut])
        return path, data[:cut].count(b"\n") + 1

    return make
