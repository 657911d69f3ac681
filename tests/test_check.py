"""check.py: what `benchdoc check` does, called as a library on a real ledger and real files."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import STORY_CONFIG
from tests.lint.conftest import record_story, story_config

from benchdoc.check import check_project
from benchdoc.docs.project import write_sync
from benchdoc.errors import EXIT_FAILED, EXIT_OK
from benchdoc.ledger.store import Ledger

LOG = """\
# EAGLE-3

EAGLE-3 is 40% slower than baseline.

<!-- benchdoc:table experiments="baseline eagle3-cuda13" -->
<!-- benchdoc:end -->
"""


def test_check_finds_stale_regions_and_stale_prose_and_passes_once_both_are_fixed(tmp_path: Path) -> None:
    (tmp_path / "benchdoc.toml").write_text(STORY_CONFIG, encoding="utf-8")
    config = story_config(tmp_path)
    log = tmp_path / "log.md"
    log.write_text(LOG, encoding="utf-8")
    with Ledger.open(f"sqlite:///{tmp_path / 'ledger.db'}") as ledger:
        record_story(ledger)
        result = check_project(config, ledger, [log])
        assert [Path(s.plan.path) for s in result.stale] == [log] and result.problems == 0
        assert result.lint is not None and result.statements == 1
        assert "40% slower than baseline" in result.lint[0].findings[0].text
        assert (result.ok, result.exit_code) == (False, EXIT_FAILED)
        assert result.summary() == (
            "1 stale document(s), 1 stale statement(s) in prose; regenerate the regions with "
            "`benchdoc sync --write`; reword the prose or bind its numbers with <!-- benchdoc:value --> (see each fix:)"
        )
        assert log.read_text(encoding="utf-8") == LOG  # a check writes nothing

        without_lint = check_project(config, ledger, [log], lint=False)
        assert without_lint.lint is None and without_lint.statements == 0 and "prose" not in without_lint.summary()

        write_sync(result.syncs[0])
        log.write_text(log.read_text(encoding="utf-8").replace("40% slower than", "faster than"), encoding="utf-8")
        fixed = check_project(config, ledger, [log])
        assert (fixed.ok, fixed.exit_code, fixed.summary()) == (True, EXIT_OK, "1 document(s) up to date")


def test_a_broken_document_is_a_problem_and_is_not_linted(tmp_path: Path) -> None:
    (tmp_path / "benchdoc.toml").write_text(STORY_CONFIG, encoding="utf-8")
    config = story_config(tmp_path)
    log = tmp_path / "log.md"
    log.write_text("EAGLE-3 is 40% slower than baseline.\n\n<!-- benchdoc:table -->\nno end\n", encoding="utf-8")
    with Ledger.open(f"sqlite:///{tmp_path / 'ledger.db'}") as ledger:
        record_story(ledger)
        result = check_project(config, ledger, [log])
    assert result.problems == 1 and result.lint == () and not result.ok
