"""A stale verdict's fix, applied by id through `benchdoc mcp`, leaves a sentence that reads.

A status word put in place of "is broken" or of "slower" in "is slower than the baseline" would
write "EAGLE-3 is Works" or "EAGLE-3 is Works than the baseline": such verdicts get words to write
by hand and no id; only a bare comparative takes the comparison's verdict sentence in its place.
"""

from __future__ import annotations

import json
import re

import anyio
from tests.agents.conftest import NEW, call, connect
from tests.conftest import Project

NOTES = (
    "# Notes\n\n"
    "On this stack EAGLE-3 is slower.\n\n"
    "EAGLE-3 is broken.\n\n"
    "EAGLE-3 is slower than the baseline.\n"
)


def test_only_a_fix_that_reads_as_a_sentence_has_an_id(story: Project) -> None:
    for name, values in NEW.items():  # after the upgrade: EAGLE-3 on CUDA 13 is 3.8% faster than the baseline
        assert story.run("record", name, "--each-start", "--metric", "output_tok_s=" + ",".join(map(str, values))).returncode == 0
    notes = story.root / "notes.md"
    notes.write_text(NOTES, encoding="utf-8")
    listed = story.run("lint", "--json", "notes.md")
    assert listed.returncode == 1, listed.stderr
    printed = json.loads(listed.stdout)
    verdicts = [f for f in printed if f["kind"] == "stale-verdict"]
    assert [f["line"] for f in verdicts] == [3, 5, 7]
    for finding in verdicts[1:]:
        assert finding["fix"].startswith('no fix proposed: reword it, e.g. "EAGLE-3')
        assert "benchdoc:value" not in finding["fix"]

    async def agent() -> None:
        async with connect(story, "--allow-write") as client:
            findings = (await call(client, "lint", documents=["notes.md"]))["findings"]
            with_id = [f for f in findings if f.get("fix_id")]
            assert [(f["kind"], f["line"]) for f in with_id] == [("stale-verdict", 3)]
            await call(client, "apply_fix", fix_id=with_id[0]["fix_id"], documents=["notes.md"])
            after = (await call(client, "lint", documents=["notes.md"]))["findings"]
            assert [f["line"] for f in after] == [5, 7] and not any(f.get("fix_id") for f in after)

    anyio.run(agent)
    text = notes.read_text(encoding="utf-8")
    assert re.search(r"On this stack EAGLE-3 is <!-- benchdoc:value eagle3-cuda13 show=verdict -->"
                     r"3\.8% faster than Baseline \(no spec\)<!-- benchdoc:end[^>]*-->\.\n", text), text
    assert "EAGLE-3 is broken." in text and "EAGLE-3 is slower than the baseline." in text
    assert story.run("sync", "--write", "--quiet").returncode == 0
    assert story.run("lint", "notes.md").returncode == 1  # the two left are the author's to reword
