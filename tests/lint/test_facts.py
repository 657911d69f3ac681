"""benchdoc.lint.facts: what the lint knows of each experiment, from results or from the cache."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.lint.conftest import record_story, story_config

from benchdoc.cache import DerivedCache
from benchdoc.ledger.store import Ledger
from benchdoc.lint import LintFacts, load_facts
from benchdoc.lint.facts import CACHE_KEY, CACHE_NAMESPACE
from benchdoc.results import LazyResults, build_results


def test_current_history_comparison_and_change(story_facts: LintFacts) -> None:
    new = story_facts.experiments["eagle3-cuda13"]
    tok = new.metrics["output_tok_s"]
    assert tok.current == pytest.approx(96.1)
    assert tok.comparison is not None and tok.comparison.against == "baseline"
    assert tok.comparison.delta_pct == pytest.approx(3.78, abs=0.01)
    assert tok.comparison.verdict == "better"
    assert tok.comparison.ci_low is not None and tok.comparison.ci_low < tok.comparison.delta_pct < tok.comparison.ci_high
    assert tok.change is not None and (tok.change.old, tok.change.new) == (pytest.approx(54.1), pytest.approx(96.1))
    baseline = story_facts.experiments["baseline"].metrics["output_tok_s"]
    assert [h.value for h in baseline.history] == [pytest.approx(92.6), pytest.approx(89.5)]  # newest first
    assert baseline.history[1].date == "2026-11-02"
    # The old run's setup differs from the current one by these versions: a sentence naming them is history.
    assert set(baseline.history[1].old_versions) == {"570.86", "12.8", "0.4.9", "0.4"}  # and "0.4" as prose writes it
    assert baseline.history[0].old_versions == ()


def test_statuses_and_the_supersedes_chain(story_facts: LintFacts) -> None:
    assert story_facts.experiments["eagle3"].status == "Superseded"
    assert story_facts.current("eagle3").name == "eagle3-cuda13"
    assert [e.name for e in story_facts.lineage("eagle3")] == ["eagle3-cuda13", "eagle3"]
    assert story_facts.experiments["nccl-tree"].status == "Failed"
    assert story_facts.experiments["nccl-tree"].reason == "CUDA graph incompatible"
    assert story_facts.experiments["nccl-fewer-channels"].status == "Untested"
    assert story_facts.metrics["output_tok_s"].digits == 1
    assert story_facts.historical_sections == ("History", "Changelog")


def test_json_round_trip_is_exact(story_facts: LintFacts) -> None:
    data = json.loads(json.dumps(story_facts.to_json()))
    assert LintFacts.from_json(data) == story_facts


def test_warm_cache_needs_no_results(tmp_path: Path) -> None:
    config = story_config(tmp_path)
    with Ledger.open(f"sqlite:///{tmp_path / 'ledger.db'}") as ledger:
        record_story(ledger)
        cache = DerivedCache(tmp_path / "cache", "fingerprint-1")
        calls = []

        def results():  # type: ignore[no-untyped-def]
            calls.append(1)
            return build_results(config, ledger)

        cold = load_facts(config, LazyResults(results), cache)
        cache.save()
        warm = load_facts(config, LazyResults(results), DerivedCache(tmp_path / "cache", "fingerprint-1"))
        assert calls == [1]  # computed once, then read back
        assert warm == cold
        # A different fingerprint (a new run) empties the cache: computed again.
        load_facts(config, LazyResults(results), DerivedCache(tmp_path / "cache", "fingerprint-2"))
        assert calls == [1, 1]


def test_unreadable_cached_facts_are_recomputed(tmp_path: Path) -> None:
    config = story_config(tmp_path)
    with Ledger.open(f"sqlite:///{tmp_path / 'ledger.db'}") as ledger:
        record_story(ledger)
        cache = DerivedCache(tmp_path / "cache", "f")
        cache.put(CACHE_NAMESPACE, CACHE_KEY, {"experiments": {"x": {"oops": 1}}})
        facts = load_facts(config, LazyResults.from_ledger(config, ledger), cache)
        assert "eagle3-cuda13" in facts.experiments
