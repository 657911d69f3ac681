"""Output paths: a device, FIFO, socket or folder (or a symlink to one) is refused and stays
what it was; an existing target is never read whole; documents stay inside the project."""

from __future__ import annotations

import os
import socket
import stat
from pathlib import Path

import pytest
from tests.conftest import Project
from tests.plots.story import record_story

from benchdoc.errors import DocumentError
from benchdoc.ledger.store import Ledger
from benchdoc.textfile import NotRegularFileError, same_content, write_atomic, write_together


def _null_device(folder: Path) -> Path:
    """Our own character device with the null device's numbers, in a temp folder (needs root)."""
    node = folder / "null"
    try:
        os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("mknod needs root")
    return node


@pytest.fixture
def story(project: Project) -> Project:
    (project.root / ".benchdoc").mkdir()
    with Ledger.open(project.ledger_url) as ledger:
        record_story(ledger)
    return project


@pytest.mark.parametrize("argv", [["plot", "-o"], ["report", "-o"], ["export", "-f", "csv", "-o"],
                                  ["export", "-f", "json", "-o"]])
@pytest.mark.parametrize("through_symlink", [False, True])
def test_a_device_given_to_o_stays_a_device(story: Project, argv: list[str], through_symlink: bool) -> None:
    device = _null_device(story.root)
    target = device
    if through_symlink:
        target = story.root / "out.svg"
        target.symlink_to(device)
    before = device.stat()
    res = story.run(*argv, target.name)
    assert res.returncode == 2, res.stderr
    (line,) = res.stderr.strip().splitlines()
    assert "is a character device" in line and "nothing was written" in line
    after = os.stat(device)
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev and after.st_ino == before.st_ino
    assert not [p for p in story.root.iterdir() if p.name.endswith(".benchdoc-tmp")]


def test_fifo_socket_and_folder_are_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    sock_path = tmp_path / "sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(sock_path))
    folder = tmp_path / "dir"
    folder.mkdir()
    link = tmp_path / "link"
    link.symlink_to(fifo)
    for path, kind in ((fifo, "a FIFO"), (sock_path, "a socket"), (folder, "a folder"), (link, "a FIFO")):
        with pytest.raises(NotRegularFileError, match=kind):
            write_atomic(path, b"x")
    server.close()
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and stat.S_ISSOCK(os.lstat(sock_path).st_mode)


def test_written_together_a_device_among_files_changes_nothing(tmp_path: Path) -> None:
    doc = tmp_path / "log.md"
    doc.write_bytes(b"old\n")
    fifo = tmp_path / "chart.svg"
    os.mkfifo(fifo)
    with pytest.raises(NotRegularFileError):
        write_together([(doc, b"new\n"), (fifo, b"<svg/>")])
    assert doc.read_bytes() == b"old\n" and stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_a_failed_rename_puts_the_old_content_back_without_reading_it(tmp_path: Path) -> None:
    first = tmp_path / "a.md"
    first.write_bytes(b"first old\n")
    second = tmp_path / "sub"
    second.mkdir()
    target = second / "b.svg"
    target.write_bytes(b"second old\n")
    os.chmod(second, 0o500)  # staging in it fails for a non-root user; for root, make the rename fail instead
    try:
        if os.geteuid() == 0:
            import benchdoc.textfile as textfile

            real_replace = os.replace
            calls: list[int] = []

            def replace_then_fail(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
                calls.append(1)
                if len(calls) == 2:
                    raise OSError(28, "No space left on device", str(dst))
                real_replace(src, dst)

            textfile.os.replace = replace_then_fail  # type: ignore[assignment]
            try:
                with pytest.raises(OSError):
                    write_together([(first, b"first new\n"), (target, b"second new\n")])
            finally:
                textfile.os.replace = real_replace  # type: ignore[assignment]
        else:
            with pytest.raises(OSError):
                write_together([(first, b"first new\n"), (target, b"second new\n")])
    finally:
        os.chmod(second, 0o700)
    assert first.read_bytes() == b"first old\n" and target.read_bytes() == b"second old\n"
    leftovers = [p for p in (*tmp_path.iterdir(), *second.iterdir()) if p.name.endswith(".benchdoc-tmp")]
    assert not leftovers


def test_same_content_compares_size_first_and_never_reads_a_device(tmp_path: Path) -> None:
    path = tmp_path / "c.svg"
    path.write_bytes(b"abc")
    assert same_content(path, b"abc") and not same_content(path, b"abd") and not same_content(path, b"ab")
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    assert not same_content(fifo, b"")  # returns at once: a FIFO is not opened
    assert not same_content(tmp_path / "missing", b"")


def test_a_listed_document_outside_the_project_is_refused_unless_opted_in(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    outside = tmp_path / "elsewhere.md"
    outside.write_text("# Log\n")
    proj = Project(root)
    proj.write_config('[metrics.x]\nprimary = true\n[experiments.a]\n[documents]\npaths = ["../elsewhere.md"]\n')
    res = proj.run("sync", "--write")
    assert res.returncode == 2
    assert "outside the project folder" in res.stderr and "outside_project = true" in res.stderr
    proj.write_config('[metrics.x]\nprimary = true\n[experiments.a]\n'
                      '[documents]\npaths = ["../elsewhere.md"]\noutside_project = true\n')
    res = proj.run("sync", "--write")
    assert res.returncode == 0, res.stderr


def test_a_document_too_large_or_not_a_file_is_one_line(tmp_path: Path) -> None:
    from benchdoc.docs.textio import read_document
    from benchdoc.limits import MAX_DOCUMENT_BYTES

    big = tmp_path / "big.md"
    with big.open("wb") as handle:
        handle.truncate(MAX_DOCUMENT_BYTES + 1)
    with pytest.raises(DocumentError, match="over the 8 MiB"):
        read_document(big)
    fifo = tmp_path / "fifo.md"
    os.mkfifo(fifo)
    with pytest.raises(DocumentError, match="a FIFO, not a regular file"):
        read_document(fifo)
