"""Decoding documents exactly and writing them back atomically."""

from __future__ import annotations

import os
import stat

import pytest

from benchdoc.docs.textio import (
    atomic_write_bytes,
    decode_bytes,
    decode_text,
    leftover_temp_files,
    read_document,
)
from benchdoc.errors import DocumentError


@pytest.mark.parametrize(
    ("data", "newline", "bom"),
    [
        (b"a\nb\r\nc", "\n", False),  # the first line ending decides, as black does
        (b"a\r\nb\nc\n", "\r\n", False),
        (b"\xef\xbb\xbfa\r\nb\r\n", "\r\n", True),
        (b"no newline at all", "\n", False),
        (b"", "\n", False),
    ],
)
def test_style_detection(data: bytes, newline: str, bom: bool) -> None:
    source = decode_bytes(data, "d.md")
    assert (source.newline, source.bom) == (newline, bom)
    assert source.data == data
    assert "\r" not in source.text


def test_offsets_map_back_to_the_original() -> None:
    original = "ab\r\ncd\ne\r\n\r\nfg\rh"
    source = decode_text(original, "d.md")
    assert source.text == "ab\ncd\ne\n\nfg\nh"
    for offset, char in enumerate(source.text):
        mapped = source.original_offset(offset)
        if char == "\n":
            assert original[mapped] in "\r\n"
        else:
            assert original[mapped] == char
    # Splicing at a line start after a CRLF keeps the CRLF whole.
    line3 = source.text.index("e")
    assert original[: source.original_offset(line3)] == "ab\r\ncd\n"
    assert source.original_offset(len(source.text)) == len(original)


def test_invalid_utf8_is_a_located_error(tmp_path) -> None:
    path = tmp_path / "log.md"
    path.write_bytes(b"# Log\n\nlatin-1 caf\xe9\n")
    with pytest.raises(DocumentError) as caught:
        read_document(path)
    assert caught.value.line == 3
    assert "not valid UTF-8" in str(caught.value) and str(caught.value).startswith(f"{path}:3:")


def test_missing_document_is_a_document_error(tmp_path) -> None:
    with pytest.raises(DocumentError, match="no such document"):
        read_document(tmp_path / "absent.md")


def test_atomic_write_keeps_permissions_and_leaves_no_temp_file(tmp_path) -> None:
    path = tmp_path / "log.md"
    path.write_bytes(b"old\n")
    os.chmod(path, 0o640)
    atomic_write_bytes(path, b"new\n" * 1000)
    assert path.read_bytes() == b"new\n" * 1000
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log.md"]
    assert leftover_temp_files(path) == []


def test_atomic_write_through_a_symlink_replaces_the_target(tmp_path) -> None:
    target = tmp_path / "real.md"
    target.write_bytes(b"old\n")
    link = tmp_path / "link.md"
    link.symlink_to(target)
    atomic_write_bytes(link, b"new\n")
    assert link.is_symlink()
    assert target.read_bytes() == b"new\n"


def test_failed_write_leaves_the_original_and_cleans_up(tmp_path) -> None:
    path = tmp_path / "log.md"
    path.write_bytes(b"old\n")

    with pytest.raises(TypeError):  # fails after the temporary file was created
        atomic_write_bytes(path, "not bytes")  # type: ignore[arg-type]
    assert path.read_bytes() == b"old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log.md"]
