"""The seed's loop, by an agent over MCP: record, read, review the sync diff, write it by plan id,
fix the stale prose by fix id, check; the log ends byte for byte as the CLI would have left it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import anyio
from tests.agents.conftest import NEW, call, connect, refused
from tests.conftest import Project


def cli_twin(project: Project, twin_root: Path) -> Project:
    """The same project, for the CLI to play the same loop in."""
    shutil.copytree(project.root, twin_root)
    return Project(twin_root)


def play_with_the_cli(twin: Project) -> None:
    """The loop as a person at a terminal plays it: record, sync --write, paste each fix, sync --write."""
    for name, values in NEW.items():
        assert twin.run("record", name, "--each-start", "--metric", "output_tok_s=" + ",".join(map(str, values))).returncode == 0
    assert twin.run("sync", "--write", "--quiet").returncode == 0
    log = twin.root / "log.md"
    while True:
        findings = json.loads(twin.run("lint", "--json").stdout)
        if not findings:
            break
        first = findings[0]
        region = first["fix"][first["fix"].index("<!--"):]  # "write "...", or bind it: <!-- ... -->"
        lines = log.read_text(encoding="utf-8").split("\n")
        line = lines[first["line"] - 1]
        start = first["column"] - 1
        assert line[start:].startswith(first["text"])
        lines[first["line"] - 1] = line[:start] + region + line[start + len(first["text"]):]
        log.write_text("\n".join(lines), encoding="utf-8")
        assert twin.run("sync", "--write", "--quiet").returncode == 0


def test_the_seed_loop_through_mcp(story: Project, tmp_path: Path) -> None:
    twin = cli_twin(story, tmp_path / "twin")
    log = story.root / "log.md"

    async def agent() -> None:
        async with connect(story, "--allow-write") as client:
            for name, values in NEW.items():
                recorded = await call(client, "record", experiment=name, metrics={"output_tok_s": values}, each_start=True)
                assert recorded["source"] == "mcp"
            shown = await call(client, "experiments")
            status = {e["name"]: e for e in shown["experiments"]}
            assert status["eagle3-cuda13"]["status"] == "Works"
            assert status["eagle3-cuda13"]["summaries"]["output_tok_s"]["median"] == 96.1
            assert status["eagle3-cuda13"]["comparisons"]["output_tok_s"]["verdict_text"].endswith("faster")
            history = await call(client, "history", experiment="eagle3-cuda13")
            assert [run["source"] for run in history["runs"]] == ["mcp"]

            plan = await call(client, "sync_plan")
            assert plan["changed"] == ["log.md"]
            added = [line for line in plan["diff"].splitlines() if line.startswith("+") and not line.startswith("+++")]
            assert any("EAGLE-3 2-step (CUDA 13 + fusion)" in line and "96.1" in line for line in added), plan["diff"]
            assert any("Current baseline:" in line and ">92.6<" in line for line in added), plan["diff"]
            before = log.read_bytes()
            written = await call(client, "sync_write", plan_id=plan["plan_id"])
            assert written["written"] == ["log.md"] and log.read_bytes() != before

            findings = (await call(client, "lint"))["findings"]
            sections = {f["section"].split(" > ")[-1] for f in findings}
            assert sections == {"Abstract", "Conclusion"}, findings
            assert all(f["kind"] == "stale-claim" and f["fix_id"] for f in findings)
            assert "+Do not enable it: EAGLE-3 is <!-- benchdoc:value" in findings[1]["fix_diff"]
            assert not (await call(client, "check"))["ok"]

            while findings:  # one fix at a time, each by its id; the next ids come from a fresh lint
                fixed = await call(client, "apply_fix", fix_id=findings[0]["fix_id"])
                assert fixed["diff"] == findings[0]["fix_diff"]
                findings = (await call(client, "lint"))["findings"]
            checked = await call(client, "check")
            assert checked["ok"], checked
            assert checked["summary"] == "benchdoc check: 1 document(s) up to date"

    anyio.run(agent)
    assert story.run("check").returncode == 0
    play_with_the_cli(twin)
    assert log.read_bytes() == (twin.root / "log.md").read_bytes()
    text = log.read_text(encoding="utf-8")
    assert "40% slower" not in text and text.count("3.8% faster than Baseline (no spec)") == 2


def test_a_plan_is_refused_once_the_ledger_moved(story: Project) -> None:
    log = story.root / "log.md"
    before = log.read_bytes()

    async def agent() -> None:
        async with connect(story, "--allow-write") as client:
            await call(client, "record", experiment="baseline", metrics={"output_tok_s": NEW["baseline"]}, each_start=True)
            plan = await call(client, "sync_plan")
            assert plan["changed"] == ["log.md"]
            await call(client, "record", experiment="eagle3-cuda13", metrics={"output_tok_s": NEW["eagle3-cuda13"]},
                       each_start=True)
            line = await refused(client, "sync_write", plan_id=plan["plan_id"])
            assert line.startswith(f"benchdoc: error: sync plan {plan['plan_id']} is out of date: ")
            assert "nothing was written" in line and "\n" not in line
            assert log.read_bytes() == before
            fresh = await call(client, "sync_plan")
            assert fresh["plan_id"] != plan["plan_id"]
            await call(client, "sync_write", plan_id=fresh["plan_id"])
            findings = (await call(client, "lint"))["findings"]
            log.write_text(log.read_text(encoding="utf-8") + "\nA line added by hand.\n", encoding="utf-8")
            line = await refused(client, "apply_fix", fix_id=findings[0]["fix_id"])
            assert line.startswith(f"benchdoc: error: fix {findings[0]['fix_id']} is out of date: ")

    anyio.run(agent)


def test_what_others_record_is_seen_at_once(story: Project) -> None:
    """The server keeps results between calls, but never past a change of the ledger or the config."""

    async def agent() -> None:
        async with connect(story) as client:
            before = {e["name"]: e for e in (await call(client, "experiments"))["experiments"]}
            assert before["baseline"]["summaries"]["output_tok_s"]["median"] == 89.5
            assert story.run("record", "baseline", "--metric", "output_tok_s=92.4,92.6,92.7").returncode == 0
            after = {e["name"]: e for e in (await call(client, "experiments"))["experiments"]}
            assert after["baseline"]["summaries"]["output_tok_s"]["median"] == 92.6
            config = (story.root / "benchdoc.toml").read_text(encoding="utf-8")
            story.write_config(config.replace('label = "Baseline (no spec)"', 'label = "Baseline, CUDA 13"'))
            relabelled = {e["name"]: e for e in (await call(client, "experiments"))["experiments"]}
            assert relabelled["baseline"]["label"] == "Baseline, CUDA 13"

    anyio.run(agent)


def test_retract_through_mcp(story: Project) -> None:
    async def agent() -> None:
        async with connect(story, "--allow-write") as client:
            recorded = await call(client, "record", experiment="baseline", metrics={"output_tok_s": [10.0, 10.1, 10.2]},
                                  note="the debug build")
            assert (await call(client, "experiments", names=["baseline"]))["experiments"][0]["summaries"][
                "output_tok_s"]["median"] == 10.1
            taken = await call(client, "retract", run_id=recorded["run_id"], reason="measured with the debug build")
            assert taken["message"] == f"retracted run {recorded['run_id']} of baseline: measured with the debug build"
            shown = (await call(client, "experiments", names=["baseline"]))["experiments"][0]
            assert shown["summaries"]["output_tok_s"]["median"] == 89.5
            runs = (await call(client, "history", experiment="baseline"))["runs"]
            assert runs[0]["run_id"] == recorded["run_id"] and runs[0]["retraction"]["reason"] == "measured with the debug build"
            assert runs[0]["source"] == "mcp" and runs[0]["note"] == "the debug build"

    anyio.run(agent)


def test_a_fix_in_a_document_named_by_the_call(story: Project) -> None:
    """lint and apply_fix on a document the config does not list, named the same way in both calls."""
    notes = story.root / "notes.md"
    notes.write_text("# Notes\n\nEAGLE-3 is 40% slower than baseline.\n", encoding="utf-8")

    async def agent() -> None:
        async with connect(story, "--allow-write") as client:
            for name, values in NEW.items():
                await call(client, "record", experiment=name, metrics={"output_tok_s": values}, each_start=True)
            findings = (await call(client, "lint", documents=["notes.md"]))["findings"]
            assert [f["file"] for f in findings] == ["notes.md"]
            line = await refused(client, "apply_fix", fix_id=findings[0]["fix_id"])  # not among the listed documents' fixes
            assert "out of date" in line
            fixed = await call(client, "apply_fix", fix_id=findings[0]["fix_id"], documents=["notes.md"])
            assert fixed["file"] == "notes.md"

    anyio.run(agent)
    text = notes.read_text(encoding="utf-8")
    assert "40% slower" not in text
    assert "<!-- benchdoc:value eagle3-cuda13 show=verdict -->3.8% faster than Baseline (no spec)<!-- benchdoc:end sum=" in text
