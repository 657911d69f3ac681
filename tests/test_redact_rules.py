"""Each redaction rule with a value it must hide and one it must keep: passwords in URLs,
prose passwords, quoted values, numbers as data, names in free text, secret dict keys."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchdoc.redact import MARKER, redact_argv, redact_env, redact_free_text, redact_obj, redact_text


def test_free_text_hides_a_short_secret_by_its_name() -> None:
    """A value too short to look random is still hidden when its name is secret."""
    assert redact_free_text("start failed: OPENAI_API_KEY=abc123 rejected") == f"start failed: OPENAI_API_KEY={MARKER} rejected"
    assert redact_free_text("start failed: MODEL=abc123 rejected") == "start failed: MODEL=abc123 rejected"


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://bench:s3cret@db/ledger", f"postgresql://bench:{MARKER}@db/ledger"),
        ("https://user@host/x", "https://user@host/x"),  # a user and no password
        ("https://user:@host/x", "https://user:@host/x"),  # an empty password
        (f"postgresql://bench:{MARKER}@db/ledger", f"postgresql://bench:{MARKER}@db/ledger"),  # already hidden
        ("https://host/a:b@c", "https://host/a:b@c"),  # an '@' in the path is no user information
    ],
)
def test_a_url_loses_only_its_password(url: str, shown: str) -> None:
    assert redact_text(url) == shown


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("the password is hunter2", f"the password is {MARKER}"),
        ("passphrase of s3cr3t!", f"passphrase of {MARKER}"),
        ("login with password hunter2.", f"login with password {MARKER}"),
        ("password authentication failed", "password authentication failed"),
        ("the PASSWORD Required.", "the PASSWORD Required."),
        ("wrong password!", "wrong password!"),
        ("passwords must match", "passwords must match"),
        ("bypass the cache", "bypass the cache"),
        ("the passcode is missing.", "the passcode is missing."),
    ],
)
def test_a_password_in_prose_is_the_next_word_unless_that_word_is_prose(text: str, shown: str) -> None:
    assert redact_text(text) == shown


def test_quotes_around_a_hidden_value_are_kept_and_a_lone_quote_is_no_quoting() -> None:
    assert redact_text('password="hunter2" user=me') == f'password="{MARKER}" user=me'
    assert redact_text("password='hunter2'") == f"password='{MARKER}'"
    assert redact_argv(["--api-key", '"']) == ["--api-key", MARKER]
    assert redact_argv(["--api-key", "'abc\""]) == ["--api-key", MARKER]  # mismatched quotes: no quoting
    assert redact_argv(["--api-key", '"abc"']) == ["--api-key", f'"{MARKER}"']


def test_a_quoted_number_is_data_under_a_token_s_name_and_secret_under_a_password_s() -> None:
    assert redact_text('token="12345"') == 'token="12345"'
    assert redact_text("token='12345' n=3") == "token='12345' n=3"
    assert redact_text('password="12345"') == f'password="{MARKER}"'
    assert redact_env({"HF_TOKEN": "'42'", "PGPASSWORD": "'42'"}) == {"HF_TOKEN": "'42'", "PGPASSWORD": MARKER}


def test_a_secret_key_under_a_secret_name_is_hidden_too() -> None:
    data = {"credentials": {"sk-proj-AAAAAAAAAAAAAAAAAAAA": "x", "count": 3, "on": True, "none": None}}
    assert redact_obj(data) == {"credentials": {"sk-***": MARKER, "count": 3, "on": True, "none": None}}
    assert redact_obj({"api_token": [("a", 1)]}) == {"api_token": [[MARKER, 1]]}  # a count is data under a token
    assert redact_obj({"credentials": [("a", 1)]}) == {"credentials": [[MARKER, MARKER]]}  # not under a password


@settings(max_examples=60, deadline=None)
@given(secret=st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!$%^*_", min_size=4, max_size=16)
       .filter(lambda s: s.lower().strip(".:!?") not in {"none", "null", "true", "false", "required", "missing"}))
def test_a_secret_under_a_secret_name_never_survives_any_entry_point(secret: str) -> None:
    """Whatever the value (digits too, under a password's name), no rule lets it through."""
    assert secret not in redact_text(f"DB_PASSWORD={secret} next").split()[0]
    assert redact_env({"DB_PASSWORD": secret}) == {"DB_PASSWORD": MARKER}
    assert redact_argv(["--password", secret]) == ["--password", MARKER]
    assert redact_argv([f"--password={secret}"]) == [f"--password={MARKER}"]
    assert redact_obj({"password": secret}) == {"password": MARKER}
    assert redact_text(f"postgresql://u:{secret}@h/db") == f"postgresql://u:{MARKER}@h/db" or "@" in secret


def test_a_key_qualifier_counts_only_just_before_the_key() -> None:
    """'SORT_KEY' is a lookup key; 'KEY_SHARD' (a key, then a word) and a bare 'KEY' are secrets:
    the qualifier must come right before KEY, and nothing comes before a KEY that starts the name."""
    from benchdoc.redact import is_secret_name

    assert not is_secret_name("SORT_KEY")
    assert is_secret_name("KEY_SHARD") and is_secret_name("KEY_GROUP") and is_secret_name("KEY")


def test_empty_text_stays_empty_text() -> None:
    assert redact_text("") == "" and redact_free_text("") == ""
    assert redact_env({"HF_TOKEN": "", "PATH": ""}) == {"HF_TOKEN": "", "PATH": ""}


@pytest.mark.parametrize("quote", ['"', "'"])
def test_a_quoted_one_digit_number_is_data_unless_a_password(quote: str) -> None:
    """Quotes come off before a value is read as a number, both of them and nothing else."""
    for digits in ("7", "42", "0.5"):
        quoted = f"{quote}{digits}{quote}"
        assert redact_text(f"session={quoted}") == f"session={quoted}"
        assert redact_text(f"X-Session-Id-Count: {digits}") == f"X-Session-Id-Count: {digits}"
        assert redact_text(f"password={quoted}") == f"password={quote}{MARKER}{quote}"
    assert redact_text(f"session={quote}7a{quote}") == f"session={quote}{MARKER}{quote}"


def test_values_under_keys_that_are_not_text_are_redacted_and_kept() -> None:
    """A dict key that is no string (a number, a tuple) keeps its value, read as any value."""
    data = {1: "password=hunter2", (2, 3): ["--api-key", "sk-abc"], 4.5: 7}
    assert redact_obj(data) == {1: f"password={MARKER}", (2, 3): ["--api-key", MARKER], 4.5: 7}
