"""benchdoc.toml discovery and validation: every error names file, line and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchdoc.config import find_config, load_config
from benchdoc.errors import ConfigError, UsageError


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "benchdoc.toml"
    path.write_text(text, encoding="utf-8")
    return path


def error_of(tmp_path: Path, text: str) -> ConfigError:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    return info.value


def test_discovery_walks_up_like_git(tmp_path: Path) -> None:
    write(tmp_path, "[experiments.a]\n")
    deep = tmp_path / "x" / "y"
    deep.mkdir(parents=True)
    assert find_config(deep) == (tmp_path / "benchdoc.toml").resolve()
    assert load_config(start=deep).experiments["a"].label == "a"


def test_discovery_fails_clearly(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no benchdoc.toml found.*benchdoc init"):
        find_config(tmp_path)


def test_default_ledger_is_next_to_the_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BENCHDOC_LEDGER_URL", raising=False)
    config = load_config(write(tmp_path, ""))
    assert config.ledger_url == f"sqlite:///{(tmp_path / '.benchdoc' / 'ledger.db').resolve()}"


def test_full_config_loads(tmp_path: Path) -> None:
    config = load_config(
        write(
            tmp_path,
            """
[metrics.output_tok_s]
label = "tok/s"
unit = "tok/s"
direction = "higher"
digits = 2
equivalence_margin = "1%"

[metrics.ttft_ms]
unit = "ms"
direction = "lower"
primary = true

[experiments.baseline]
label = "Baseline"
role = "reference"

[experiments.eagle3]
label = "EAGLE-3 2-step"
aliases = ["EAGLE-3", "eagle"]
compare_to = "baseline"
args = ["--speculative-algorithm", "EAGLE3"]
env = { NCCL_ALGO = "Tree" }
repetitions = 5

[experiments.eagle3-new]
compare_to = "baseline"
supersedes = "eagle3"

[documents]
paths = ["log.md"]
""",
        )
    )
    metric = config.metrics["output_tok_s"]
    assert (metric.direction, metric.digits, metric.equivalence_margin) == ("higher", 2, 0.01)
    assert (metric.better_word, metric.worse_word) == ("faster", "slower")
    assert config.primary_metric == "ttft_ms"
    eagle = config.experiment("eagle")  # by alias, case-insensitive
    assert eagle.name == "eagle3" and eagle.env == {"NCCL_ALGO": "Tree"} and eagle.repetitions == 5
    assert config.superseded_by() == {"eagle3": "eagle3-new"}
    assert config.documents.paths == ((tmp_path / "log.md").resolve(),)


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ('[experiments.a]\nlabel = "A"\n\n[experiments.b]\ncompare_to = "aa"\n', 5,
         "experiments.b.compare_to: unknown experiment 'aa' (did you mean 'a'?)"),
        ('[experiments.a]\nsupersedes = "b"\n[experiments.b]\nsupersedes = "a"\n', 2,
         "'supersedes' forms a cycle: a -> b -> a"),
        ('[metrics.tps]\ndirection = "up"\n', 2, "metrics.tps.direction: direction must be \"higher\" or \"lower\""),
        ('[experiments.a]\nlable = "A"\n', 2, "experiments.a.lable: unknown key 'lable' (did you mean 'label'?)"),
        ('[ledgr]\nurl = "x"\n', 1, "unknown key 'ledgr' (did you mean 'ledger'?)"),
        ('[metrics.tps]\ndigits = "two"\n', 2, "metrics.tps.digits: expected a whole number of digits"),
        ('[metrics.tps]\nunit = 3\n', 2, "metrics.tps.unit: expected a string, got 3"),
        ('[experiments.a]\nrepetitions = 0\n', 2, "repetitions must be at least 1"),
        ('[experiments.a]\nrole = "baseline"\n', 2, "role must be \"reference\""),
        ('[experiments.a]\ncompare_to = "a"\n', 2, "cannot compare to itself"),
        ('[stats]\ncorrection = "holmes"\n', 2, "correction must be one of holm, bonferroni, bh, none"),
        ('[metrics.tps]\nequivalence_margin = "one"\n', 2, "expected a fraction like 0.01"),
        ('[experiments.a]\nlabel = "A\n', 2, "invalid TOML"),
    ],
)
def test_validation_errors_name_file_line_and_key(tmp_path: Path, text: str, line: int, fragment: str) -> None:
    err = error_of(tmp_path, text)
    assert err.file and err.file.endswith("benchdoc.toml")
    assert err.line == line, str(err)
    assert fragment in str(err)
    assert str(err).startswith(f"{err.file}:{line}: ")


def test_two_experiments_cannot_supersede_the_same_one(tmp_path: Path) -> None:
    err = error_of(
        tmp_path,
        '[experiments.old]\n[experiments.a]\nsupersedes = "old"\n[experiments.b]\nsupersedes = "old"\n',
    )
    assert "'old' is already superseded by 'a'" in str(err) and err.line == 5


def test_unknown_experiment_lookup_suggests(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, "[experiments.baseline]\n"))
    with pytest.raises(UsageError, match="unknown experiment 'basline' \\(did you mean 'baseline'\\?\\)"):
        config.experiment("basline")


def test_ledger_url_from_environment_overrides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BENCHDOC_LEDGER_URL", "postgresql://u@127.0.0.1/db")
    assert load_config(write(tmp_path, "")).ledger_url == "postgresql://u@127.0.0.1/db"


def test_a_sweep_level_of_an_experiment_is_an_experiment(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, """
[experiments.baseline]
label = "Baseline"
role = "reference"

[experiments.eagle3]
label = "EAGLE-3"
aliases = ["EAGLE"]
compare_to = "baseline"
"""))
    level = config.experiment("EAGLE@rate=4")
    assert level.name == "eagle3@rate=4" and level.label == "EAGLE-3 @ 4 req/s"
    assert level.compare_to == "baseline@rate=4"
    assert config.experiment("baseline@concurrency=32").label == "Baseline @ 32 in flight"
    assert config.experiment("baseline@concurrency=32").is_reference
    for unknown in ("nope@rate=4", "baseline@rate=fast", "baseline@"):
        with pytest.raises(UsageError, match="unknown experiment"):
            config.experiment(unknown)


def test_primary_must_be_true_or_false(tmp_path: Path) -> None:
    err = error_of(tmp_path, '[metrics.a]\n\n[metrics.b]\nprimary = "no"\n')
    assert err.line == 4 and "metrics.b.primary: expected true or false" in err.message
    config = load_config(write(tmp_path, "[metrics.a]\n\n[metrics.b]\nprimary = false\n"))
    assert config.primary_metric == "a"


@pytest.mark.parametrize("margin", ['"150%"', "1.5", '"0%"', "0"])
def test_equivalence_margin_is_refused_the_same_way_as_a_percentage_or_a_fraction(tmp_path: Path, margin: str) -> None:
    err = error_of(tmp_path, f"[metrics.a]\nequivalence_margin = {margin}\n")
    assert err.line == 2 and "between 0" in err.message
    assert load_config(write(tmp_path, '[metrics.a]\nequivalence_margin = "1.5%"\n')).metrics["a"].equivalence_margin == pytest.approx(0.015)


@pytest.mark.parametrize("name", ['"eagle 3"', '"a*"', '"x=1"', '"-flag"', '"q\'uote"', '""', '"a,b"'])
def test_experiment_names_follow_the_grammar(tmp_path: Path, name: str) -> None:
    err = error_of(tmp_path, f"[experiments.base]\n\n[experiments.{name}]\ncompare_to = \"base\"\n")
    assert err.line == 3 and "is not a valid experiment name" in err.message
    ok = load_config(write(tmp_path, '[experiments.base]\n[experiments."mem0.85-cuda13_v1"]\n'))
    assert ok.experiments["mem0.85-cuda13_v1"].label == "mem0.85-cuda13_v1"


def test_invalid_utf8_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "benchdoc.toml"
    path.write_bytes(b"[experiments.a]\nlabel = \"ok\"\nnotes = \"caf\xe9\"\n")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert info.value.line == 3 and "not valid UTF-8: byte 0xe9" in info.value.message


def test_an_array_of_tables_names_its_line(tmp_path: Path) -> None:
    err = error_of(tmp_path, '[metrics.a]\n\n[[experiments]]\nname = "a"\n')
    assert err.line == 3 and "not an array of tables [[experiments]]" in err.message
    err = error_of(tmp_path, '[[metrics]]\nname = "a"\n')
    assert err.line == 1 and "[[metrics]]" in err.message


def test_metric_bounds_are_declared_with_min_and_max(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, "[metrics.score]\nmin = -10\nmax = 10\n\n[metrics.output_tok_s]\n"))
    assert config.metrics["score"].value_problem(-5) is None
    assert "above its declared max 10" in (config.metrics["score"].value_problem(11) or "")
    assert "negative" in (config.metrics["output_tok_s"].value_problem(-1) or "")
    err = error_of(tmp_path, "[metrics.score]\nmin = 5\nmax = 1\n")
    assert err.line == 2 and "min (5) must be below max (1)" in err.message


@pytest.mark.parametrize(
    ("written", "mode", "spelling"),
    [("latest", "latest", "latest"), ("all", "all", "all"), ("runs:5", "runs", "runs:5"),
     ("since:2026-11-01", "since", "since:2026-11-01"), ("since:2026-11-01T14:30", "since", "since:2026-11-01T14:30")],
)
def test_stats_pool_is_read_in_each_accepted_form(tmp_path: Path, written: str, mode: str, spelling: str) -> None:
    config = load_config(write(tmp_path, f'[stats]\nalpha = 0.05\npool = "{written}"\n'))
    assert config.stats.pool.mode == mode and config.stats.pool.spelling == spelling


def test_stats_pool_defaults_to_the_latest_run(tmp_path: Path) -> None:
    assert load_config(write(tmp_path, "[stats]\nalpha = 0.05\n")).stats.pool.mode == "latest"


@pytest.mark.parametrize("bad", ['"newest"', '"runs:0"', '"runs:five"', '"since:yesterday"', "5", '"runs"'])
def test_a_bad_stats_pool_is_one_line_naming_the_key_and_the_forms(tmp_path: Path, bad: str) -> None:
    err = error_of(tmp_path, f"[stats]\nalpha = 0.05\npool = {bad}\n")
    assert str(err).startswith(f"{err.file}:3: stats.pool: ")
    assert '"latest", "all", "runs:N" (N >= 1) or "since:YYYY-MM-DD[THH:MM]"' in str(err)
    assert "\n" not in str(err)
