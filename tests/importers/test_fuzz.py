"""Fuzzing the importers: any file is runs or one ImportFormatError, never a traceback,
and a refused file records nothing."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchdoc.errors import BenchdocError
from benchdoc.importers import FORMATS, parse_file
from benchdoc.ledger import Ledger

from .conftest import sample
from .test_importers import SAMPLES

SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(10**400), max_value=10**400),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=20),
)
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3), max_leaves=6)
FUZZ = settings(max_examples=250, deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def _mutate(obj: Any, choices: list[int], replacement: Any) -> Any:
    """``obj`` with one value (chosen by ``choices``) replaced, recursively."""
    if isinstance(obj, dict) and obj and choices:
        key = sorted(obj)[choices[0] % len(obj)]
        return {**obj, key: _mutate(obj[key], choices[1:], replacement)}
    if isinstance(obj, list) and obj and choices:
        index = choices[0] % len(obj)
        return [*obj[:index], _mutate(obj[index], choices[1:], replacement), *obj[index + 1 :]]
    return replacement


def _sample_objects(name: str) -> list[Any]:
    """Every JSON value in a sample (JSON Lines and appended files hold several)."""
    text, decoder, found, at = sample(name).read_text(), json.JSONDecoder(), [], 0
    while text[at:].strip():
        at += len(text[at:]) - len(text[at:].lstrip())
        value, at = decoder.raw_decode(text, at)
        found.append(value)
    return found


def _refused_or_recorded(path: Path, fmt: str) -> None:
    """Parse and record; a refusal must be a BenchdocError and leave the ledger empty."""
    with tempfile.TemporaryDirectory() as folder, Ledger.open(f"sqlite:///{folder}/ledger.db") as ledger:
        try:
            runs = parse_file(path, fmt)
        except BenchdocError:
            assert ledger.run_count() == 0
            return
        ids = ledger.record_runs([run.to_new_run("baseline") for run in runs])
        assert len(ids) == len(runs) == ledger.run_count()


@FUZZ
@given(
    name=st.sampled_from(sorted(SAMPLES)),
    choices=st.lists(st.integers(min_value=0, max_value=50), min_size=1, max_size=4),
    replacement=VALUES,
    auto=st.booleans(),
)
def test_a_mutated_results_file_is_runs_or_one_clear_error(name: str, choices: list[int], replacement: Any, auto: bool) -> None:
    objects = [_mutate(obj, choices, replacement) for obj in _sample_objects(name)]
    text = "\n".join(json.dumps(obj) for obj in objects) + "\n"
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_text(text)
        _refused_or_recorded(path, "auto" if auto else SAMPLES[name])


@FUZZ
@given(data=st.binary(max_size=400), fmt=st.sampled_from(["auto", *sorted(FORMATS)]))
def test_arbitrary_bytes_are_refused_cleanly(data: bytes, fmt: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "results.json"
        path.write_bytes(data)
        _refused_or_recorded(path, fmt)
