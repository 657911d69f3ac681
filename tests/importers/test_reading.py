"""Reading result files: every refusal names the file, the line and what was expected."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from benchdoc.errors import ImportFormatError
from benchdoc.importers.reading import (
    Where,
    load_json_document,
    load_json_lines,
    load_json_values,
    number,
    number_list,
    scalars,
    utc_from_epoch,
    utc_from_text,
)

EXPECTED = "a thing with keys"


def write(tmp_path: Path, text: str, name: str = "f.json") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_json_lines_give_each_line_its_number_and_skip_blank_lines(tmp_path: Path) -> None:
    path = write(tmp_path, '{"a": 1}\n\n{"a": 2}\n', "f.jsonl")
    assert load_json_lines(path, EXPECTED) == [(1, {"a": 1}), (3, {"a": 2})]


def test_a_truncated_last_line_is_refused_by_number(tmp_path: Path) -> None:
    path = write(tmp_path, '{"a": 1}\n{"a": 2}\n{"a": 3, "b": [1, 2', "f.jsonl")
    with pytest.raises(ImportFormatError) as info:
        load_json_lines(path, EXPECTED)
    err = info.value
    assert err.file == str(path) and err.line == 3
    assert "truncated" in err.message and EXPECTED in err.message
    assert str(err).startswith(f"{path}:3: ")


def test_a_broken_line_in_the_middle_is_invalid_not_truncated(tmp_path: Path) -> None:
    path = write(tmp_path, '{"a": 1}\n{"a": 2,, "b": 3}\n{"a": 3}\n', "f.jsonl")
    with pytest.raises(ImportFormatError) as info:
        load_json_lines(path, EXPECTED)
    assert info.value.line == 2
    assert "is not valid JSON (column 9" in info.value.message and "truncated" not in info.value.message


def test_a_pretty_printed_document_is_not_json_lines(tmp_path: Path) -> None:
    path = write(tmp_path, '{\n  "a": 1\n}\n', "f.jsonl")
    with pytest.raises(ImportFormatError, match="one JSON document written over several lines, not JSON Lines"):
        load_json_lines(path, EXPECTED)


def test_a_json_document_reports_the_decoders_line_and_column(tmp_path: Path) -> None:
    path = write(tmp_path, '{\n  "a": 1,\n  "b": tru\n}\n')
    with pytest.raises(ImportFormatError) as info:
        load_json_document(path, EXPECTED)
    assert info.value.line == 3 and "column 8" in info.value.message


def test_a_cut_json_document_is_called_truncated_at_its_last_line(tmp_path: Path) -> None:
    path = write(tmp_path, '{\n  "a": 1,\n  "b": [1,\n')
    with pytest.raises(ImportFormatError) as info:
        load_json_document(path, EXPECTED)
    assert info.value.line == 4 and "the file looks truncated" in info.value.message


def test_two_documents_in_one_file_are_refused_as_such(tmp_path: Path) -> None:
    path = write(tmp_path, '{"a": 1}\n{"a": 2}\n')
    with pytest.raises(ImportFormatError, match="more than one JSON value"):
        load_json_document(path, EXPECTED)


def test_appended_values_start_where_they_start(tmp_path: Path) -> None:
    path = write(tmp_path, '{"a": 1}\n{\n  "a": 2\n}\n{"a": 3}')
    assert load_json_values(path, EXPECTED) == [(1, {"a": 1}), (2, {"a": 2}), (5, {"a": 3})]


def test_a_cut_appended_value_names_the_line_it_started_on(tmp_path: Path) -> None:
    path = write(tmp_path, '{"a": 1}\n{\n  "a": 2,\n  "b": ')
    with pytest.raises(ImportFormatError) as info:
        load_json_values(path, EXPECTED)
    assert info.value.line == 4
    assert "starts on line 2" in info.value.message and "truncated" in info.value.message


@pytest.mark.parametrize(
    ("content", "message"),
    [(b"", "the file is empty"), (b"  \n\n", "the file is empty"), (b"\xff\xfe{}", "not a UTF-8 text file")],
)
def test_empty_and_binary_files_are_refused(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "f.json"
    path.write_bytes(content)
    with pytest.raises(ImportFormatError, match=message):
        load_json_document(path, EXPECTED)


def test_a_missing_file_and_a_folder_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ImportFormatError, match="no such file"):
        load_json_document(tmp_path / "absent.json", EXPECTED)
    with pytest.raises(ImportFormatError, match="is a folder"):
        load_json_document(tmp_path, EXPECTED)


def test_numbers_are_checked_and_non_finite_ones_mean_no_value(tmp_path: Path) -> None:
    where = Where(tmp_path / "f.jsonl", 4, "", EXPECTED)
    obj = {"x": 2, "y": float("nan"), "z": None, "t": "fast", "b": True}
    assert number(obj, "x", where) == 2.0
    assert number(obj, "y", where) is None and number(obj, "z", where) is None and number(obj, "w", where) is None
    with pytest.raises(ImportFormatError) as info:
        number(obj, "t", where)
    assert info.value.line == 4 and "key 't' should be a number, found text \"fast\"" in info.value.message
    with pytest.raises(ImportFormatError, match="key 'b' should be a number, found a boolean"):
        number(obj, "b", where)
    with pytest.raises(ImportFormatError, match="missing key 'w'"):
        number(obj, "w", where, required=True)
    with pytest.raises(ImportFormatError, match=r"results\[0\]\.times: item 1 should be a finite number"):
        number_list({"times": [1.0, "x"]}, "times", where.child("results").child(0))


def test_scalars_keep_settings_and_leave_long_lists_behind() -> None:
    obj = {"backend": "sglang", "rate": float("inf"), "ttfts": list(range(100)), "slo": {"ttft": 200}, "skip": 1}
    assert scalars(obj, skip={"skip"}) == {"backend": "sglang", "rate": "inf", "slo": {"ttft": 200}}


def test_times_are_utc_and_zoneless_times_are_taken_as_utc(tmp_path: Path) -> None:
    where = Where(tmp_path / "f.json")
    assert utc_from_text("20251103-141502", where, "date", ("%Y%m%d-%H%M%S",)) == datetime(
        2025, 11, 3, 14, 15, 2, tzinfo=timezone.utc
    )
    assert utc_from_text("2025-11-02T18:45:12+02:00", where, "datetime") == datetime(
        2025, 11, 2, 16, 45, 12, tzinfo=timezone.utc
    )
    assert utc_from_epoch(1730715002) == datetime(2024, 11, 4, 10, 10, 2, tzinfo=timezone.utc)
    assert utc_from_epoch(0) is None
    with pytest.raises(ImportFormatError, match="key 'date' is not a date and time"):
        utc_from_text("yesterday", where, "date")
