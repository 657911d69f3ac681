"""runner.jsonpath: JSON paths into a command workload's results."""

from __future__ import annotations

import pytest

from benchdoc.planning.jsonpath import parse_json_path


def test_json_paths() -> None:
    assert parse_json_path("results[0].output_throughput") == ["results", 0, "output_throughput"]
    assert parse_json_path('[-1]["a.b"].c') == [-1, "a.b", "c"]
    for bad in ("", ".a", "a.", "a..b", "a[x]"):
        with pytest.raises(ValueError, match="invalid JSON path"):
            parse_json_path(bad)
