"""`benchdoc show` (and `compare`, `history`) output: outliers marked, the interval said, a p column,
Markdown to paste in a pull request, and wide tables split by metric at a narrow terminal."""

from __future__ import annotations

import json

from tests.conftest import Project

from benchdoc.results.words import format_p

BASE_TOK = [92.6, 92.4, 92.9, 92.5, 92.7, 92.3, 92.8]  # [92.3, 92.9] around 92.6: ± 0.3%
BASE_TTFT = [40, 41, 39, 40, 42, 40, 60]  # 60 is an outlier; [39, 60] around 40: lopsided
NEW_TOK = [96.1, 95.8, 96.4, 96.0, 96.3, 96.2, 95.9]
NEW_TTFT = [35, 36, 34, 35, 36, 35, 35.5]
ODD_LABEL = "EAGLE-3 [fused] | v2"


def record(project: Project, experiment: str, **metrics: list[float]) -> None:
    args = [a for name, values in metrics.items() for a in ("-m", f"{name}=" + ",".join(map(str, values)))]
    result = project.run("record", experiment, "--each-start", *args)
    assert result.returncode == 0, result.stderr


def story(project: Project) -> None:
    record(project, "baseline", output_tok_s=BASE_TOK, ttft_ms_p50=BASE_TTFT)
    record(project, "eagle3-cuda13", output_tok_s=NEW_TOK, ttft_ms_p50=NEW_TTFT)
    record(project, "nccl-tree", output_tok_s=[92.1, 92.8, 93.0, 92.2, 92.6, 92.4])


WIDE = {"COLUMNS": "260"}  # every column at natural width: a row's label on one line


def row_cells(stdout: str, label: str) -> list[str]:
    """The cells of the terminal table row that starts with ``label``."""
    line = next(line for line in stdout.splitlines() if line.startswith(f"│ {label} "))
    return [cell.strip() for cell in line.strip("│").split("│")]


def header_cells(stdout: str) -> list[str]:
    line = next(line for line in stdout.splitlines() if line.startswith("┃"))
    return [cell.strip() for cell in line.strip("┃").split("┃")]


def markdown_rows(stdout: str) -> list[list[str]]:
    """Each table line of Markdown output as its (still escaped) cells."""
    rows = [line for line in stdout.splitlines() if line.startswith("| ")]
    return [[cell.strip() for cell in row.strip("|").split(" | ")] for row in rows]


def test_show_marks_outliers_says_what_the_interval_is_and_gives_the_p_compare_gives(project: Project) -> None:
    story(project)
    shown = project.run("show", env=WIDE)
    assert shown.returncode == 0, shown.stderr
    headers = header_cells(shown.stdout)
    base = dict(zip(headers, row_cells(shown.stdout, "Baseline (no spec)")))
    assert base["tok/s"] == "92.6 ± 0.3%"  # symmetric: the half-width
    assert base["TTFT p50 [ms]"] == "40.0 [-2.5%, +50.0%] †"  # lopsided: the interval itself, and an outlier
    assert "± is the half-width of the 95% interval of the median" in shown.stdout
    assert "[low, high] is that interval itself where its two sides differ" in shown.stdout
    assert "† outliers (outside 3×IQR of the quartiles (wider below 7 values, none below 5); flagged, still " \
           "counted in the median): " \
           "Baseline (no spec) TTFT p50 60.0" in shown.stdout

    eagle = dict(zip(headers, row_cells(shown.stdout, "EAGLE-3 2-step (CUDA 13 + fusion)")))
    data = json.loads(project.run("show", "--json").stdout)
    adjusted = next(e for e in data["experiments"] if e["name"] == "eagle3-cuda13")["comparisons"]["output_tok_s"]
    assert adjusted["p_adjusted"] is not None and adjusted["p_adjusted"] != adjusted["p_value"]  # two compared: Holm
    assert eagle["p"] == format_p(adjusted["p_adjusted"])
    compared = project.run("compare", "eagle3-cuda13")
    p_cell = dict(zip(header_cells(compared.stdout), row_cells(compared.stdout, "tok/s (higher is better)")))["p"]
    assert p_cell.split()[0] == eagle["p"]
    assert dict(zip(headers, row_cells(shown.stdout, "Baseline (no spec)")))["p"] == "—"  # the reference has none
    assert "with the Holm-Bonferroni (family-wise error rate) correction across 2 comparisons" in shown.stdout


def test_markdown_of_show_and_compare_pastes_the_same_numbers_and_words(project: Project) -> None:
    project.write_config(project.root.joinpath("benchdoc.toml").read_text().replace(
        'label = "EAGLE-3 2-step (CUDA 13 + fusion)"', f'label = "{ODD_LABEL}"'))
    story(project)
    terminal = project.run("show", env=WIDE)
    pasted = project.run("show", "--markdown")
    assert pasted.returncode == 0, pasted.stderr
    rows = markdown_rows(pasted.stdout)
    # The name to type beside each label (run, history and compare take names).
    assert rows[0][:4] == ["experiment", "name", "status", "runs"] and rows[0][-2:] == ["p", "measured (UTC)"]
    assert pasted.stdout.splitlines()[1].startswith("|:---|:---|:---|---:|")
    assert len(rows) == 1 + 5  # the header, then one row per experiment
    eagle = next(row for row in rows if row[0].startswith("EAGLE-3 \\[fused\\] \\| v2"))
    assert eagle[0] == "EAGLE-3 \\[fused\\] \\| v2"  # escaped: neither a link nor a column split
    on_screen = row_cells(terminal.stdout, ODD_LABEL)
    assert [cell.replace("\\", "").replace("&lt;", "<") for cell in eagle[1:]] == on_screen[1:]  # the same cells
    assert "3.8% faster" in eagle[-3]
    note = pasted.stdout.rstrip("\n").splitlines()[-1]
    assert note.startswith("medians of the latest run of each experiment (all its repetitions); runs = pooled/recorded.")
    assert "± is the half-width of the 95% interval of the median" in note

    compared = project.run("compare", "eagle3-cuda13", "--markdown")
    assert compared.returncode == 0, compared.stderr
    crows = markdown_rows(compared.stdout)
    assert crows[0] == ["metric", "baseline", "eagle3-cuda13", "delta", "interval (level)", "p", "p uncorrected", "verdict"]
    on_screen = project.run("compare", "eagle3-cuda13").stdout
    for row in crows[1:]:
        plain = [cell.replace("\\", "").replace("&lt;", "<") for cell in row]
        assert plain == row_cells(on_screen, plain[0])
    assert "(eagle3-cuda13 1 run, baseline 1 run)" in compared.stdout  # how many runs each side pools
    assert "\\[low, high\\] is that interval itself" in compared.stdout
    both = project.run("show", "--markdown", "--json")
    assert both.returncode == 2 and "not allowed with argument" in both.stderr


def many_metrics(project: Project, count: int) -> list[str]:
    """Runs of metrics not declared (as a load generator records dozens), written to the ledger."""
    from benchdoc.ledger.models import NewRun, Sample
    from benchdoc.ledger.store import Ledger

    names = [f"kv_cache_metric_number_{i:02d}" for i in range(count)]
    with Ledger.open(project.ledger_url) as ledger:
        for experiment, base in (("baseline", 100.0), ("eagle3-cuda13", 120.0)):
            samples = [Sample(name, base + i + j / 10, j, j) for i, name in enumerate(names) for j in range(6)]
            ledger.record_run(NewRun(experiment, samples=samples))
    return names


def test_all_metrics_at_a_narrow_terminal_split_by_metric_without_cutting_or_emptying(project: Project) -> None:
    names = many_metrics(project, 12)
    width = 100
    pasted = markdown_rows(project.run("show", "--all-metrics", "--markdown").stdout)
    shown = project.run("show", "--all-metrics", env={"COLUMNS": str(width)})
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert max(len(line) for line in lines) <= width
    assert "…" not in shown.stdout
    assert sum(1 for line in lines if line.startswith("┃ experiment ")) > 1  # split into blocks, the experiment repeated
    for above, line in zip(lines, lines[1:]):  # no column drawn without a header (the headers' last line)
        if line.startswith("┡"):
            assert all(cell.strip() for cell in above.strip("┃").split("┃")), above
    for name in names:
        assert sum(1 for line in lines if f" {name} " in line) == 1, name  # every metric's header whole, once
    for row in pasted[1:]:
        for cell in row[3:-3]:  # every metric cell of the Markdown table is on screen whole
            assert f" {cell} " in shown.stdout, cell


def test_history_all_metrics_at_a_narrow_terminal_keeps_every_value_whole(project: Project) -> None:
    names = many_metrics(project, 8)
    width = 90
    shown = project.run("history", "baseline", "--all-metrics", env={"COLUMNS": str(width)})
    assert shown.returncode == 0, shown.stderr
    assert max(len(line) for line in shown.stdout.splitlines()) <= width
    assert "…" not in shown.stdout
    for i, name in enumerate(names):
        assert f" {name} " in shown.stdout
        assert ", ".join(f"{100.0 + i + j / 10:.1f}" for j in range(6)) in shown.stdout
    assert sum(1 for line in shown.stdout.splitlines() if line.startswith("┃ run ")) > 1  # the run repeated per block


def test_the_status_is_the_same_whichever_metric_is_shown(project: Project) -> None:
    story(project)
    statuses = {e["name"]: e["status"] for e in json.loads(project.run("show", "--json").stdout)["experiments"]}
    assert statuses["eagle3-cuda13"] == "Works"
    for metric in ("ttft_ms_p50", "TTFT p50"):
        shown = project.run("show", "--metric", metric, env=WIDE)
        assert shown.returncode == 0, shown.stderr
        assert row_cells(shown.stdout, "EAGLE-3 2-step (CUDA 13 + fusion)")[1:3] == ["eagle3-cuda13", "Works"], shown.stdout
        only = json.loads(project.run("show", "--metric", metric, "--json").stdout)["experiments"]
        assert {e["name"]: e["status"] for e in only} == statuses
