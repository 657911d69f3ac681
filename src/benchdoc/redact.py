"""Secret redaction: what benchdoc stores or prints never carries a key, token or password.

Every secret found is replaced by the marker ``***`` (:data:`MARKER`). Where the kind of
secret helps a reader (a URL's user name, a header's scheme, a well-known key prefix), that
part is kept and only the secret itself becomes ``***``::

    postgresql://bench:s3cretpw@db/ledger      -> postgresql://bench:***@db/ledger
    https://host/v1?api_key=abc123&model=m     -> https://host/v1?api_key=***&model=m
    Authorization: Bearer eyJhbGciOi...        -> Authorization: Bearer ***
    OPENAI_API_KEY=sk-proj-Abc123...           -> OPENAI_API_KEY=***
    --api-key abc123 / --token=abc123          -> --api-key *** / --token=***
    hf_AbCdEf0123456789abcdefXYZ (anywhere)    -> hf_***

Two kinds of evidence are used, and every entry point applies both:

* **by name** — a value is secret when the name it is bound to (an environment variable,
  a JSON key, a ``--flag``, a query parameter, a header) looks secret; see
  :func:`is_secret_name`.
* **by shape** — some values are secret wherever they appear: credentials inside URLs,
  bearer tokens, and keys with well-known prefixes (``sk-``, ``hf_``, ``ghp_``, ``xoxb-``,
  ``AKIA``, ``AIza``, ``glpat-``, JSON web tokens, PEM private key blocks).

Redaction is idempotent: redacting already-redacted text changes nothing. Values that
reveal nothing (empty, ``None``, ``null``, ``true``, ``false``) are left as they are. In
free text a ``name=value`` value ends at whitespace, a quote or one of ``& , ; ) ] }`` (as
in query strings and printed Python objects); where the boundaries are known (an
environment mapping, an argv element, a JSON value) the whole value is replaced.

Not recognised: secrets passed as a bare positional argument, curl's ``-u user:password``,
and secrets with no telling name and no known shape (a 40-character hex string under an
innocent name is indistinguishable from a commit hash).
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

MARKER = "***"

# Words that make a name secret. Names are split into words on separators and camelCase
# humps (``OPENAI_API_KEY`` -> OPENAI, API, KEY; ``apiKey`` -> API, KEY), so a word inside
# another word (MONKEY, TOKENIZER, PASSES) never matches. The plural TOKENS is deliberately
# absent: ``max_tokens``, ``output_tokens`` are counts, not credentials.
_SECRET_WORDS = frozenset(
    {
        "KEY", "APIKEY", "ACCESSKEY", "SECRETKEY", "PRIVATEKEY", "AUTHKEY",
        "TOKEN", "ACCESSTOKEN", "AUTHTOKEN", "APITOKEN", "REFRESHTOKEN", "BEARER",
        "SECRET", "SECRETS", "CLIENTSECRET",
        "PASSWORD", "PASSWORDS", "PASSWD", "PASS", "PASSPHRASE", "PASSCODE", "PASSKEY", "PWD",
        "SSHPASS", "PGPASS", "DBPASS", "PIN", "PINCODE", "OTP", "TOTP",
        "CREDENTIAL", "CREDENTIALS", "CREDS", "CRED", "PAT", "PW", "KEYS",
        "AUTH", "AUTHORIZATION",
        "COOKIE", "COOKIES", "SESSION",
        "PRIVATE", "DSN", "SIGNATURE", "SIG",
    }
)  # fmt: skip

# Glued-on prefixes still betray these words (``PGPASSWORD``, ``CSRFTOKEN``,
# ``DBSECRET``). KEY is not among them: too many words end in it (MONKEY, WHISKEY).
_SECRET_WORD_ENDINGS = (
    "PASSWORD", "PASSWD", "PASSPHRASE", "PASSCODE", "SECRET", "TOKEN", "APIKEY", "CREDENTIALS", "PWD", "PASS",
)  # fmt: skip
# Words ending in PASS or PWD that are not credentials (a compass, a two-pass filter, the
# shell's working folder).
_NOT_SECRET_WORDS = frozenset(
    {"BYPASS", "COMPASS", "SURPASS", "TRESPASS", "OVERPASS", "UNDERPASS", "MULTIPASS", "SINGLEPASS", "ONEPASS",
     "TWOPASS", "FIRSTPASS", "SECONDPASS", "OLDPWD"}
)
# PIN is a credential's word only at the end of a name and not after these (CPU_PIN, NUMA_PIN
# say where threads run).
_PIN_PLACES = frozenset({"CPU", "CPUS", "CORE", "CORES", "NUMA", "THREAD", "THREADS", "GPU", "MEMORY", "MEM", "IRQ"})

# A name ending in one of these words describes a secret (its id, length, file, kind)
# without being one: ``eos_token_id``, ``AWS_ACCESS_KEY_ID``, ``HF_TOKEN_PATH``,
# ``--speculative-token-map``, ``session_timeout``. The value still passes the shape rules.
_DESCRIPTIVE_LAST_WORDS = frozenset(
    {
        "ID", "IDS", "COUNT", "NUM", "LEN", "LENGTH", "SIZE", "LIMIT", "MAX", "MIN",
        "TIMEOUT", "TTL", "EXPIRY", "FILE", "PATH", "DIR", "TYPE", "MODE", "MAP", "NAME",
        "ENABLED", "DISABLED", "REQUIRED", "URL", "HOST", "PORT", "BACKEND", "METHOD",
        "SOCK", "SOCKET", "SOURCE",
        # a measurement: inter_token_latency_ms, e2e_per_token_ms_mean, ..._quantiles_p99
        "MS", "S", "US", "NS", "SEC", "SECONDS", "MEAN", "MEDIAN", "AVG", "STD", "STDDEV",
        "P", "RATE", "LATENCY", "THROUGHPUT", "TOTAL", "RATIO",
    }
)  # fmt: skip

# A name starting with one of these is an on/off switch (``--disable-auth``,
# ``--enable-sessions``), never a credential, and as a flag it takes no value.
_SWITCH_FIRST_WORDS = frozenset(
    {"ENABLE", "DISABLE", "NO", "USE", "SKIP", "ALLOW", "WITH", "WITHOUT", "REQUIRE", "IGNORE"}
)

# KEY after one of these words is a lookup key, not a credential (``sort_key``,
# ``cache_key``, ``public_key``).
_NON_SECRET_KEY_QUALIFIERS = frozenset(
    {
        "SORT", "GROUP", "CACHE", "PARTITION", "PRIMARY", "FOREIGN", "HASH", "LOOKUP",
        "ROUTING", "DICT", "INDEX", "METRIC", "ROW", "COLUMN", "SHARD", "PUBLIC", "MAP",
    }
)  # fmt: skip

# Names carrying one of these words hold a password-like secret, which may be all digits;
# under any other secret name (TOKEN, KEY, SESSION, ...) a number is data: a count, a
# latency, an id (``inter_token_latency_s``, ``num_speculative_token``).
_PASSWORD_WORDS = ("PASSWORD", "PASSWD", "PASS", "PASSPHRASE", "PASSCODE", "PW", "PWD", "PIN", "OTP", "SECRET",
                   "CREDENTIAL", "CRED")
_NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")

# Short flags whose value is a password (mysql -p, sshpass -p) unless it is a number or a
# port mapping (``-p 8000``, ``-p 8080:80``).
_SECRET_SHORT_FLAGS = frozenset({"-p"})
_PORTS = re.compile(r"[\d.:\[\]]*\d(?:/(?:tcp|udp|sctp))?")

# Values that reveal nothing ("not set", a switch): leaving them visible tells the reader
# that no credential was configured.
_REVEALS_NOTHING = frozenset(
    {"", "None", "none", "null", "NULL", "''", '""', "true", "false", "True", "False"}
)

_HUMP_ACRONYM = re.compile(r"([A-Z]+)([A-Z][a-z])")
_HUMP = re.compile(r"([a-z0-9])([A-Z])")
_NON_ALNUM = re.compile(r"[^A-Za-z0-9]+")
_TRAILING_DIGITS = re.compile(r"\d+$")


def _name_words(name: str) -> list[str]:
    spaced = _HUMP.sub(r"\1_\2", _HUMP_ACRONYM.sub(r"\1_\2", name))
    words = (_TRAILING_DIGITS.sub("", word).upper() for word in _NON_ALNUM.split(spaced))
    return [word for word in words if word]


def names_password(name: str) -> bool:
    """Whether ``name`` holds a password-like secret or an API key (either may be all digits)."""
    words = _name_words(name)
    if "APIKEY" in words or ("API" in words and "KEY" in words):
        return True
    return any(word.startswith(_PASSWORD_WORDS) or word.endswith(_PASSWORD_WORDS) for word in words)


def _is_number(value: str) -> bool:
    if _is_quoted(value):
        value = value[1:-1]
    return bool(_NUMBER.fullmatch(value))


def _number_is_data(name: str, value: object) -> bool:
    """Numbers are never secrets, except under a password's name."""
    if isinstance(value, bool):
        return False
    is_number = isinstance(value, (int, float)) or (isinstance(value, str) and _is_number(value))
    return is_number and not names_password(name)


@functools.lru_cache(maxsize=4096)  # a pure function of the name; logs repeat their names
def is_secret_name(name: str) -> bool:
    """Whether a value bound to ``name`` (variable, key, flag, parameter, header) is secret.

    True when one of the name's words is a secret word (KEY, TOKEN, SECRET, PASSWORD,
    PASSWD, PASS, PASSPHRASE, PASSCODE, PWD, SSHPASS, PIN (as the last word), OTP,
    CREDENTIAL(S), AUTH, AUTHORIZATION, COOKIE, SESSION, PRIVATE,
    DSN, SIGNATURE and compounds like APIKEY) or a word ends in PASSWORD, SECRET, TOKEN
    and the like (``PGPASSWORD``); unless the name ends in a word that only describes the
    secret (ID, PATH, FILE, COUNT, ...), starts with a switch word (ENABLE, DISABLE, NO,
    USE, ...), or the secret word is a lookup KEY (``sort_key``, ``public_key``).
    """
    words = _name_words(name)
    if not words or words[-1] in _DESCRIPTIVE_LAST_WORDS or words[0] in _SWITCH_FIRST_WORDS:
        return False
    if words == ["PWD"]:  # the shell's working folder
        return False
    for index, word in enumerate(words):
        if word in _NOT_SECRET_WORDS or (word not in _SECRET_WORDS and not word.endswith(_SECRET_WORD_ENDINGS)):
            continue
        if word == "KEY" and index > 0 and words[index - 1] in _NON_SECRET_KEY_QUALIFIERS:
            continue
        if word == "PIN" and (index != len(words) - 1 or (index > 0 and words[index - 1] in _PIN_PLACES)):
            continue
        return True
    return False


# --- rules by shape -------------------------------------------------------------------

_PEM_PRIVATE_KEY = re.compile(
    r"-----BEGIN (?P<kind>[A-Z0-9 ]*PRIVATE KEY)-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)",
    re.DOTALL,
)

# scheme://user:password@host -- the authority ends at the first '/', '?', '#' or space;
# the user information is everything before its last '@'.
_URL_AUTHORITY = re.compile(r"(?P<scheme>(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]{0,31}://)(?P<authority>[^\s/?#\"'<>]+)")

# Keys recognisable by their prefix; the prefix is kept, the rest becomes the marker.
_KEY_SHAPES = re.compile(
    r"""(?<![A-Za-z0-9_\-])(?:
        (?P<openai>sk-)[A-Za-z0-9][A-Za-z0-9_\-]{15,}
      | (?P<stripe>[sr]k_(?:live|test)_)[A-Za-z0-9]{16,}
      | (?P<hf>hf_)[A-Za-z0-9]{20,}
      | (?P<github>gh[pousr]_)[A-Za-z0-9]{20,}
      | (?P<github_pat>github_pat_)[A-Za-z0-9_]{20,}
      | (?P<gitlab>glpat-)[A-Za-z0-9_\-]{20,}
      | (?P<slack>xox[abposr]-)[A-Za-z0-9\-]{10,}
      | (?P<aws>(?:AKIA|ASIA))[0-9A-Z]{16}
      | (?P<google>AIza)[0-9A-Za-z_\-]{35}
      | (?P<npm>npm_)[A-Za-z0-9]{36}
      | (?P<jwt>eyJ)[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}
    )(?![A-Za-z0-9_\-])""",
    re.VERBOSE,
)

# --- rules by name inside text --------------------------------------------------------

# Authorization headers keep their scheme (Bearer, Basic, token, ...) and lose the credential.
_AUTHORIZATION_HEADER = re.compile(
    r"(?i)(?P<head>\b(?:proxy-)?authorization\s*:\s*)(?:(?P<scheme>bearer|basic|token|digest|apikey)\s+)?(?P<value>[^\s\"',;]+)"
)
_COOKIE_HEADER = re.compile(r"(?i)(?P<head>\b(?:set-)?cookie\s*:\s*)(?P<value>[^\r\n\"']+)")
# Other headers (hyphenated names such as X-Api-Key) whose name looks secret.
_SECRET_HEADER = re.compile(r"(?P<head>(?<![\w\-])(?P<name>[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+)\s*:\s*)(?P<value>[^\s\"',;]+)")
# A bearer token wherever it appears (curl -H arguments, log lines).
_BEARER = re.compile(r"(?i)(?P<head>\bbearer\s+)(?P<value>[A-Za-z0-9\-._~+/]{8,}=*)")
# name=value, name="value", name='value': environment assignments, query parameters,
# --flag=value, keyword arguments in a printed Python object.
_ASSIGNMENT = re.compile(
    r"""(?P<head>(?<![A-Za-z0-9_.\-])(?P<name>-{0,2}[A-Za-z_][A-Za-z0-9_.\-]*)=)(?P<value>"[^"]*"|'[^']*'|[^\s&"',;)\]}]+)"""
)
_ASSIGNMENT_HEAD = re.compile(r"(?<![A-Za-z0-9_.\-])(?P<name>-{0,2}[A-Za-z_][A-Za-z0-9_.\-]*)=")
_ASSIGNMENT_VALUE = re.compile(r""""[^"]*"|'[^']*'|[^\s&"',;)\]}]+""")
# "name": "value" and 'name': 'value' in JSON or a printed dict.
# A value opening a list or an object is left to the rules for its items.
_QUOTED_PAIR = re.compile(r"""(?P<head>(?P<q>["'])(?P<name>[^"'\s]+)(?P=q)\s*:\s*)(?P<value>"[^"]*"|'[^']*'|[^\s"',}\]\[{]+)""")
# name: value at the start of a line (YAML, key: value logs).
# The value is one word or one quoted string: "token: the tokenizer was slow" is prose, not a secret.
_LINE_PAIR = re.compile(
    r"""(?m)(?P<head>^[ \t]*(?:-[ \t]+)?(?P<name>[A-Za-z_][A-Za-z0-9_.\-]*)[ \t]*:[ \t]+)(?P<value>"[^"\r\n]*"|'[^'\r\n]*'|[^\s"']\S*)[ \t]*$"""
)
# --flag value, with the value as the next word.
_FLAG_VALUE = re.compile(r"""(?P<head>(?<!\S)(?P<name>--?[A-Za-z][A-Za-z0-9_\-]*)[ \t]+)(?P<value>"[^"]*"|'[^']*'|[^\s\-]\S*)""")


# "password hunter2", "the passphrase is X", "PWD: X" in prose: a password word, then the
# value as the next word, unless that word is prose ("password authentication failed").
_PROSE_PASSWORD = re.compile(
    r"""(?i)(?P<head>(?<![A-Za-z0-9_\-])(?P<name>password|passwd|passphrase|passcode)s?(?![A-Za-z0-9_\-])"""
    r"""(?:[ \t]*[:=][ \t]*|[ \t]+(?:is|was|of|set[ \t]+to)[ \t]+|[ \t]+))(?P<value>[^\s"'<>,;()\[\]{}]+)"""
)
_PROSE_WORDS = frozenset(
    {
     "a", "an", "the", "and", "or", "for", "of", "to", "in", "on", "is", "was", "be", "been", "are", "not",
     "no", "none", "required", "incorrect", "invalid", "wrong", "failed", "fails", "failure", "missing",
     "expired", "reset", "change", "changed", "changes", "must", "should", "will", "can", "cannot", "may",
     "authentication", "auth", "login", "prompt", "policy", "length", "file", "hash", "field", "mismatch",
     "set", "protected", "based", "manager", "too", "empty", "given", "provided", "needed", "needs",
     "supplied", "accepted", "rejected", "denied", "ok", "okay", "correct", "matches", "match", "from", "with",
     "without", "if", "when", "by", "as", "at", "via", "hidden", "redacted", "masked",
    }
)  # fmt: skip


def _redact_prose_password(match: re.Match[str]) -> str:
    value = match.group("value")
    if value.lower().rstrip(".:!?") in _PROSE_WORDS:
        return match.group(0)
    return match.group("head") + _masked(value)


def _is_quoted(value: str) -> bool:
    return len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'"


# What an earlier rule leaves behind ("***", "'***'", "Bearer ***", "hf_***"): kept as is
# so that redaction is idempotent and keeps the scheme or prefix it already showed.
_ALREADY_REDACTED = re.compile(r"([\"']?)(?:[A-Za-z_\-]{0,12} ?)?\*\*\*\1")


def _masked(value: str) -> str:
    """The marker standing in for ``value``, keeping surrounding quotes; the value itself
    if it reveals nothing or was already redacted."""
    if value in _REVEALS_NOTHING or _ALREADY_REDACTED.fullmatch(value):
        return value
    if _is_quoted(value):
        return value[0] + MARKER + value[-1]
    return MARKER


def _redact_authority(match: re.Match[str]) -> str:
    authority = match.group("authority")
    userinfo, at, host = authority.rpartition("@")
    if not at:
        return match.group(0)
    user, colon, password = userinfo.partition(":")
    if not colon or not password or password == MARKER:
        return match.group(0)
    return f"{match.group('scheme')}{user}:{MARKER}@{host}"


def _redact_key_shape(match: re.Match[str]) -> str:
    prefix = next(group for group in match.groups() if group)
    return prefix + MARKER


def _redact_value(match: re.Match[str]) -> str:
    return match.group("head") + _masked(match.group("value"))


def _redact_named_value(match: re.Match[str]) -> str:
    name = match.group("name")
    if not is_secret_name(name) or _number_is_data(name, match.group("value")):
        return match.group(0)
    return _redact_value(match)


def _redact_assignments(text: str) -> str:
    """name=value pairs; after a name that is not secret the scan goes on inside its value,
    which may hold a secret pair itself (``--comment=token=X``). Linear: each name is
    looked at once, and only a secret name's value is read."""
    pieces: list[str] = []
    position = 0
    while head := _ASSIGNMENT_HEAD.search(text, position):
        name = head.group("name")
        value = _ASSIGNMENT_VALUE.match(text, head.end()) if is_secret_name(name) else None
        if value is not None and not _number_is_data(name, value.group(0)):
            pieces.append(text[position : head.end()] + _masked(value.group(0)))
            position = value.end()
        else:
            pieces.append(text[position : head.end()])
            position = head.end()
    pieces.append(text[position:])
    return "".join(pieces)


def _redact_authorization(match: re.Match[str]) -> str:
    scheme = match.group("scheme")
    return match.group("head") + (f"{scheme} " if scheme else "") + _masked(match.group("value"))


def redact_text(text: str) -> str:
    """``text`` with every recognised secret replaced by ``***`` (see the module docs)."""
    if not text:
        return text
    # Rules keyed on a literal word run only when the word is present: logs are long.
    lowered = text.lower()
    if "private key-----" in lowered:
        text = _PEM_PRIVATE_KEY.sub(lambda m: f"-----BEGIN {m.group('kind')}-----{MARKER}-----END {m.group('kind')}-----", text)
    if "://" in text:
        text = _URL_AUTHORITY.sub(_redact_authority, text)
    if "authorization" in lowered:
        text = _AUTHORIZATION_HEADER.sub(_redact_authorization, text)
    if "cookie" in lowered:
        text = _COOKIE_HEADER.sub(_redact_value, text)
    if ":" in text:
        text = _SECRET_HEADER.sub(_redact_named_value, text)
        text = _QUOTED_PAIR.sub(_redact_named_value, text)
        text = _LINE_PAIR.sub(_redact_named_value, text)
    if "bearer" in lowered:
        text = _BEARER.sub(_redact_value, text)
    if "=" in text:
        text = _redact_assignments(text)
    if "-" in text:
        text = _FLAG_VALUE.sub(_redact_named_value, text)
    if "pass" in lowered:
        text = _PROSE_PASSWORD.sub(_redact_prose_password, text)
    # Shapes last: a value already hidden by its name becomes a plain marker, not "sk-***".
    text = _KEY_SHAPES.sub(_redact_key_shape, text)
    return text


_WORD = re.compile(r"[^\s\"'<>(){}\[\],;]+")


def redact_free_text(text: str) -> str:
    """Free text from outside (a failure reason, a server's log line, a note): :func:`redact_text`,
    and every word that looks like a generated key (:func:`looks_random`) becomes ``***``."""
    text = redact_text(text)
    if not text or len(text) < _RANDOM_RUN:
        return text

    def word(match: re.Match[str]) -> str:
        value = match.group(0)
        return MARKER if looks_random(value) else value

    return _WORD.sub(word, text)


def redact_env(environment: Mapping[str, str]) -> dict[str, str]:
    """A copy of an environment with secret values replaced by ``***``.

    A variable whose name looks secret (:func:`is_secret_name`: ``OPENAI_API_KEY``,
    ``HF_TOKEN``, ``PGPASSWORD``) loses its whole value, unless the value is a number
    and the name no password's; a value that looks like a key by its shape or its
    randomness (:func:`looks_secret`) is hidden too; every other value is kept but
    passed through :func:`redact_text`, so ``DATABASE_URL=postgresql://u:pw@h/db`` keeps
    all but the password. Empty values stay empty.
    """
    redacted: dict[str, str] = {}
    for name, value in environment.items():
        if is_secret_name(name) and not _number_is_data(name, value):
            redacted[name] = MARKER if value else value
        else:
            text = redact_text(value)
            redacted[name] = MARKER if text == value and looks_random(value) else text
    return redacted


# A generated key: a run of at least this many letters and digits between separators,
# with about as many bits per character as random text of that length has.
_RANDOM_RUN = 20
_RANDOM_BITS_PER_CHAR = 3.9
_KEY_SEPARATORS = re.compile(r"[^A-Za-z0-9]+")
_HEX = re.compile(r"[0-9a-fA-F]+")


def looks_secret(value: str) -> bool:
    """Whether a value with no telling name is a key anyway: a known shape, a password in
    a URL, or a long random-looking word (:func:`looks_random`)."""
    return bool(value) and (redact_text(value) != value or looks_random(value))


def looks_random(value: str) -> bool:
    """A word holding a long run of letters and digits, not all hex, with the entropy of a
    generated key; a path, a model name, a UUID or a hex commit hash is not one."""
    if " " in value or value.startswith(("/", ".")):
        return False
    longest = max(_KEY_SEPARATORS.split(value), key=len)
    if len(longest) < _RANDOM_RUN or _HEX.fullmatch(longest):
        return False
    if not (any(c.isdigit() for c in longest) and any(c.isalpha() for c in longest)):
        return False

    counts = Counter(longest)
    bits = -sum(n / len(longest) * math.log2(n / len(longest)) for n in counts.values())
    return bits >= _RANDOM_BITS_PER_CHAR


_ENV_ASSIGNMENT = re.compile(r"(?P<name>[A-Za-z_][A-Za-z0-9_]*)=")


def _is_flag(arg: str) -> bool:
    return len(arg) > 1 and arg.startswith("-") and not arg[1:2].isdigit() and arg[1:2] != "."


def _secret_flag_value(flag: str, value: str) -> bool:
    """Whether the value after (or glued with ``=`` to) a flag is its secret."""
    if flag in _SECRET_SHORT_FLAGS:
        return not _PORTS.fullmatch(value)
    return is_secret_name(flag) and not _number_is_data(flag, value)


def redact_argv(argv: Sequence[str]) -> list[str]:
    """A copy of a command line with secrets replaced by ``***``.

    The argument after a secret-looking flag (``--api-key VALUE``, ``--hf-token VALUE``,
    ``-p VALUE`` unless a port) becomes ``***`` unless it is itself a flag or a number that
    is data (``--num-speculative-token 4``); ``--token=VALUE`` becomes ``--token=***``;
    every other argument passes through :func:`redact_text` (URLs with passwords,
    ``HF_TOKEN=...`` before a command, ``-H "Authorization: Bearer ..."``, known key shapes).
    """
    redacted: list[str] = []
    secret_flag: str | None = None
    for arg in argv:
        if secret_flag is not None:
            flag, secret_flag = secret_flag, None
            if not _is_flag(arg) and _secret_flag_value(flag, arg):
                redacted.append(_masked(arg))
                continue
        assignment = _ENV_ASSIGNMENT.match(arg)
        if assignment and is_secret_name(assignment.group("name")):
            # NAME=VALUE before a command (env, docker -e): the whole value is the secret.
            name, value = assignment.group("name"), arg[assignment.end() :]
            redacted.append(arg if _number_is_data(name, value) else name + "=" + _masked(value))
            continue
        if _is_flag(arg):
            name, equals, value = arg.partition("=")
            if equals:
                redacted.append(f"{name}={_masked(value)}" if _secret_flag_value(name, value) else f"{name}={redact_text(value)}")
                continue
            if is_secret_name(name) or name in _SECRET_SHORT_FLAGS:
                secret_flag = name
                redacted.append(arg)
                continue
        redacted.append(redact_free_text(arg))
    return redacted


def _redact_everything(obj: Any, name: str) -> Any:
    """Every leaf of ``obj`` replaced: it sits under the secret name ``name``.

    Numbers stay (a count or a statistic whose name holds a secret word, such as
    ``results_inter_token_latency_s_stddev``, is data) unless the key right above them
    names a password or an API key.
    """
    if isinstance(obj, Mapping):
        return {(redact_text(key) if isinstance(key, str) else key): _redact_everything(value, str(key)) for key, value in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_redact_everything(item, name) for item in obj]
    if obj is None or isinstance(obj, bool) or _number_is_data(name, obj):
        return obj
    if isinstance(obj, str):
        return _masked(obj)
    return MARKER


def redact_obj(obj: Any) -> Any:
    """A redacted copy of JSON-like data (dicts, lists, tuples, strings, numbers).

    Under a key whose name looks secret (``api_key``, ``Authorization``, ``credentials``)
    every string is replaced by ``***``, including the leaves of a nested dict or list
    (``None``, booleans and numbers stay: they are not credentials, and a statistic such as
    ``inter_token_latency_stddev`` must keep its value). A list made only of strings is
    treated as a command line (:func:`redact_argv`); every other string passes through
    :func:`redact_text`, dict keys included. Other values are returned unchanged.
    Tuples come back as lists.
    """
    if isinstance(obj, Mapping):
        result: dict[Any, Any] = {}
        for key, value in obj.items():
            if isinstance(key, str):
                safe_key = redact_text(key)
                result[safe_key] = _redact_everything(value, key) if is_secret_name(key) else redact_obj(value)
            else:
                result[key] = redact_obj(value)
        return result
    if isinstance(obj, (list, tuple)):
        if obj and all(isinstance(item, str) for item in obj):
            return redact_argv(obj)
        return [redact_obj(item) for item in obj]
    if isinstance(obj, str):
        return redact_text(obj)
    return obj
