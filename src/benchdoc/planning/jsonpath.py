"""JSON paths into a command workload's results: ``results[0].output_throughput``.

Parsed once when the [workloads] table is read (to report a bad path with file:line) and
again when the numbers are read.
"""

from __future__ import annotations

import re

_SEGMENT = re.compile(r"""\.?(?:(?P<name>[^.\[\]"]+)|\[(?P<index>-?\d+)\]|\["(?P<quoted>[^"]*)"\])""")


def parse_json_path(path: str) -> list[str | int]:
    """``results[0].output_throughput`` -> ``["results", 0, "output_throughput"]``.

    Segments are names separated by dots, ``[N]`` list indices (``[-1]`` is the last
    item) and ``["a.b"]`` for a name holding dots or brackets.
    """
    if not path or path.startswith(".") or path.endswith("."):
        raise ValueError(f"invalid JSON path {path!r} (expected something like results[0].throughput)")
    segments: list[str | int] = []
    position = 0
    while position < len(path):
        match = _SEGMENT.match(path, position)
        if match is None or match.end() == position or (position > 0 and path[position] not in ".["):
            raise ValueError(f"invalid JSON path {path!r} at character {position + 1}")
        if match.group("index") is not None:
            segments.append(int(match.group("index")))
        elif match.group("quoted") is not None:
            segments.append(match.group("quoted"))
        else:
            segments.append(match.group("name"))
        position = match.end()
    return segments
