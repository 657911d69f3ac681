"""Before measuring, the ledger must take a write: `bench --record` against a read-only,
full or in-memory ledger sends no request and loses nothing."""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from tests.conftest import STORY_CONFIG, Project

from benchdoc.ledger.models import NewRun, Sample
from benchdoc.ledger.store import Ledger


class _Counting(BaseHTTPRequestHandler):
    hits: list[str] = []

    def _count(self) -> None:
        self.hits.append(self.path)
        self.send_response(500)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_POST = _count

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def counting_server() -> Iterator[tuple[str, list[str]]]:
    hits: list[str] = []
    handler = type("Handler", (_Counting,), {"hits": hits})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", hits
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def mount(tmp_path: Path) -> Iterator[Path]:
    """A small tmpfs of our own (needs root); unmounted after."""
    folder = tmp_path / "mnt"
    folder.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=6m", "tmpfs", str(folder)], capture_output=True)
    if done.returncode != 0:
        pytest.skip("mounting a tmpfs needs root")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True)


def _ledger_with_one_run(url: str) -> None:
    with Ledger.open(url) as ledger:
        ledger.record_run(NewRun(experiment="baseline", samples=[Sample("output_tok_s", 90.0, 0)]))


def test_bench_record_against_a_read_only_ledger_sends_no_request(
    project: Project, mount: Path, counting_server: tuple[str, list[str]]
) -> None:
    url = f"sqlite:///{mount / 'ledger.db'}"
    _ledger_with_one_run(url)
    subprocess.run(["mount", "-o", "remount,ro", str(mount)], check=True)
    project.write_config(STORY_CONFIG + f'\n[ledger]\nurl = "{url}"\n')
    base, hits = counting_server
    res = project.run("bench", "--url", base, "--requests", "4", "--record", "baseline")
    assert res.returncode == 1, res.stderr
    (line,) = res.stderr.strip().splitlines()
    assert "cannot" in line and "nothing was measured" in line and "Traceback" not in res.stderr
    assert hits == []
    assert project.run("show").returncode == 0  # the ledger is still readable and whole


def test_a_full_ledger_folder_is_refused_before_measuring(
    project: Project, mount: Path, counting_server: tuple[str, list[str]]
) -> None:
    url = f"sqlite:///{mount / 'ledger.db'}"
    _ledger_with_one_run(url)
    filler = mount / "filler"
    with filler.open("wb") as handle:  # fill the tmpfs to its last few KiB
        try:
            while True:
                handle.write(b"\0" * 65536)
                handle.flush()
        except OSError:
            pass
    project.write_config(STORY_CONFIG + f'\n[ledger]\nurl = "{url}"\n')
    base, hits = counting_server
    res = project.run("bench", "--url", base, "--requests", "4", "--record", "baseline")
    assert res.returncode == 1 and "nothing was measured" in res.stderr, res.stderr
    assert hits == []


@pytest.mark.parametrize("argv", [["record", "baseline", "--metric", "output_tok_s=90"],
                                  ["bench", "--url", "http://127.0.0.1:9", "--requests", "1", "--record", "baseline"]])
def test_an_in_memory_ledger_is_refused_for_recording(project: Project, argv: list[str]) -> None:
    project.write_config(STORY_CONFIG + '\n[ledger]\nurl = "sqlite:///:memory:"\n')
    res = project.run(*argv)
    assert res.returncode == 1
    assert "keeps nothing" in res.stderr and "recorded run" not in res.stdout
