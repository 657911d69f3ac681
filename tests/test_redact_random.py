"""The random-token rule of benchdoc.redact, each of its conditions with a value on
either side: run length, letters and digits, not hex, the entropy threshold."""

from __future__ import annotations

import math
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchdoc.redact import MARKER, looks_random, looks_secret, redact_env, redact_free_text

KEY_20 = "xK9mP2qR7vT4wZ8nB3cF"  # 20 distinct characters: 4.32 bits each


def _bits(word: str) -> float:
    counts = Counter(word)
    return -sum(n / len(word) * math.log2(n / len(word)) for n in counts.values())


def test_run_length_twenty_is_the_threshold() -> None:
    assert looks_random(KEY_20)
    assert not looks_random(KEY_20[:19])
    assert looks_random(f"sk-{KEY_20}") and not looks_random(f"sk-{KEY_20[:10]}-{KEY_20[10:]}")


def test_letters_and_digits_both_needed() -> None:
    letters = "QWERTYUIOPASDFGHJKLZ"
    assert _bits(letters) > 4.3 and not looks_random(letters)
    assert not looks_random("qwertyuiopasdfghjklzxcv")
    assert looks_random("QWERTYUIOPASDFGHJKL7")


def test_the_entropy_threshold() -> None:
    above, below = "xxK9mP2qR7vT4wZ8nBxx", "xxKKmP2qR7vT4wZ8nBxx"
    assert 3.9 <= _bits(above) < 3.95 and 3.8 < _bits(below) < 3.9
    assert looks_random(above)
    assert not looks_random(below)
    assert not looks_random("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1")


@pytest.mark.parametrize("ordinary", [
    "0123456789abcdef0123456789abcdef01234567",  # a commit hash
    "550e8400-e29b-41d4-a716-446655440000",  # a UUID
    "/opt/models/xK9mP2qR7vT4wZ8nB3cF/weights",  # a path
    "./xK9mP2qR7vT4wZ8nB3cF",
    "xK9mP2qR7v T4wZ8nB3cF6hJ1",  # words
    "meta-llama/Llama-3.1-8B-Instruct",
])
def test_ordinary_values_are_not_random(ordinary: str) -> None:
    assert not looks_random(ordinary)


@settings(max_examples=100, deadline=None)
@given(word=st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", min_size=1, max_size=40))
def test_looks_random_is_its_rule(word: str) -> None:
    """The rule stated independently: a run of >= 20, not all hex, letters and digits, >= 3.9 bits."""
    expected = (
        len(word) >= 20
        and not all(c in "0123456789abcdefABCDEF" for c in word)
        and any(c.isdigit() for c in word) and any(c.isalpha() for c in word)
        and _bits(word) >= 3.9
    )
    assert looks_random(word) is expected


def test_where_the_rule_decides_what_is_kept() -> None:
    assert redact_env({"MY_THING": KEY_20, "MODEL": "Llama-3.1-8B"}) == {"MY_THING": MARKER, "MODEL": "Llama-3.1-8B"}
    assert redact_env({"MY_THING": KEY_20[:19]}) == {"MY_THING": KEY_20[:19]}
    assert looks_secret(KEY_20) and not looks_secret("") and not looks_secret("plain")
    assert redact_free_text(f"failed with key {KEY_20} at start") == f"failed with key {MARKER} at start"
    assert redact_free_text(f"failed with key {KEY_20[:19]}") == f"failed with key {KEY_20[:19]}"
    assert redact_free_text("short") == "short"


def test_free_text_gets_the_shape_rules_too() -> None:
    text = redact_free_text("connect postgresql://bench:hunter2@db.local/ledger failed")
    assert "hunter2" not in text and "bench" in text and "db.local/ledger" in text


@pytest.mark.parametrize(("name", "secret"), [
    ("PIN", True), ("SIM_PIN", True), ("NUMA_PIN", False), ("CPU_PIN", False), ("PIN_MEMORY", False),
    ("API_KEY", True), ("SORT_KEY", False),
])
def test_the_pin_and_key_rules(name: str, secret: bool) -> None:
    from benchdoc.redact import is_secret_name

    assert is_secret_name(name) is secret


def test_numbers_are_data_except_under_a_password_s_name() -> None:
    kept = {"HF_TOKEN_COUNT": "3", "API_TOKEN": "12345", "HF_TOKEN": '"512"'}
    assert redact_env(kept) == kept
    assert redact_env({"API_KEY": "12345", "DB_PASSWORD": '"512"'}) == {"API_KEY": MARKER, "DB_PASSWORD": MARKER}


def test_a_value_starting_with_a_dash_and_a_digit_is_a_value_not_a_flag() -> None:
    from benchdoc.redact import redact_argv

    assert redact_argv(["--hf-token", "-5ecretValue"]) == ["--hf-token", MARKER]
    assert redact_argv(["--hf-token", "-.5ecret"]) == ["--hf-token", MARKER]
    assert redact_argv(["--hf-token", "--port", "8000"]) == ["--hf-token", "--port", "8000"]
    assert redact_argv(["--hf-token", "-"]) == ["--hf-token", MARKER]


def test_free_text_of_exactly_the_run_length_is_read_for_randomness() -> None:
    """The shortcut for short texts stops below twenty characters: a text that is one key
    of exactly twenty is hidden, by itself or inside a longer line."""
    assert redact_free_text(KEY_20) == MARKER
    assert redact_free_text(KEY_20[:19]) == KEY_20[:19]
    assert redact_free_text(f"key {KEY_20} sent") == f"key {MARKER} sent"


_NOT_7_OR_Q = "ABCDEFGHIJKLMNOPRSTUVWXYZabcdefghijklmnoprstuvwxyz012345689"


@given(st.lists(st.sampled_from(_NOT_7_OR_Q), min_size=18, max_size=38, unique=True), st.integers(0, 40), st.integers(0, 40))
def test_a_run_of_distinct_letters_and_digits_is_always_a_key(chars: list[str], digit_at: int, letter_at: int) -> None:
    """Twenty or more distinct characters carry at least log2(20) = 4.32 bits each, above
    the threshold; with a digit and a letter outside hex they are a key, alone or in a line."""
    chars.insert(digit_at % (len(chars) + 1), "7")
    chars.insert(letter_at % (len(chars) + 1), "q")
    word = "".join(chars)
    assert looks_random(word)
    assert redact_free_text(word) == MARKER
    assert redact_free_text(f"sent {word} now") == f"sent {MARKER} now"
