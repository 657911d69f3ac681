"""A result folder per run (``bench --result-dir DIR``): what was measured, as files.

Each run gets its own folder ``DIR/<UTC time>-<name>/`` holding ``summary.json`` (the run's
settings, provenance, metrics, client verdict and server series: ``bench --json``'s
object) and ``requests.jsonl`` (one line per measured request, as ``--per-request`` gives
it). Nothing already there is overwritten: a name taken gets ``-2``, ``-3``... The files
are written together (both, or neither).
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from benchdoc.errors import UsageError
from benchdoc.textfile import write_together

if TYPE_CHECKING:
    from benchdoc.workloads.result import WorkloadResult

_UNSAFE = re.compile(r"[^A-Za-z0-9._=@+-]+")


def check_result_dir(folder: str) -> Path:
    """``folder`` as a Path, refused (one line) when it exists and is not a folder."""
    path = Path(folder)
    if path.exists() and not path.is_dir():
        raise UsageError("--result-dir: not a folder", folder)
    return path


def write_result_files(folder: Path, name: str, result: WorkloadResult, when: datetime | None = None) -> Path:
    """Write one run's files in a new folder under ``folder``; returns that folder."""
    stamp = (when or datetime.now(timezone.utc)).strftime("%Y%m%dT%H%M%SZ")
    base = folder / f"{stamp}-{_UNSAFE.sub('_', name).strip('_') or 'bench'}"
    target, number = base, 1
    while target.exists():
        number += 1
        target = base.with_name(f"{base.name}-{number}")
    try:
        target.mkdir(parents=True)
    except OSError as err:
        raise UsageError(f"--result-dir: cannot create the folder: {err.strerror}", str(target)) from None
    summary = json.dumps(result.to_dict(), indent=2, sort_keys=True, allow_nan=False, default=str) + "\n"
    lines = "".join(json.dumps(r.to_dict(), sort_keys=True, default=str) + "\n" for r in result.records)
    write_together([(target / "summary.json", summary.encode()), (target / "requests.jsonl", lines.encode())])
    return target
