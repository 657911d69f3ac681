"""What a program benchdoc starts inherits: this process's environment less benchdoc's own
settings and the ledger's credentials.

The server under test (SGLang, vLLM, anything on ``server.command``) and an external load
generator are third-party code: they have no use for the ledger, so neither gets
``BENCHDOC_LEDGER_URL`` (which may hold the team's password), any other ``BENCHDOC_*``
variable, nor libpq's ``PGPASSWORD`` and ``PGPASSFILE``. What the project file sets for a
server on purpose (``[servers.X] env``) is added on top by the caller, unless it is one of
these names.
"""

from __future__ import annotations

from collections.abc import Mapping

WITHHELD_PREFIX = "BENCHDOC_"
WITHHELD = frozenset({"PGPASSWORD", "PGPASSFILE"})


def withheld(name: str) -> bool:
    """Whether a child never inherits the variable ``name``."""
    return name.upper().startswith(WITHHELD_PREFIX) or name.upper() in WITHHELD


def child_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """``environ`` without the variables no program benchdoc starts may see."""
    return {name: value for name, value in environ.items() if not withheld(name)}
