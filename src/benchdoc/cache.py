"""A small on-disk cache of derived results, valid while the config and ledger are unchanged.

`benchdoc check` runs in CI and pre-commit hooks, where start-up time matters. Rendering a
region needs statistics (numpy, scipy); when neither benchdoc.toml nor the ledger changed
since the last sync, the rendered text is the same, so it is read back instead.

The fingerprint covers benchdoc's version, the config file's bytes, the ledger URL and the
ledger's change token (its run count, highest run id and latest retraction: runs are
append-only, so these change with every new run and every retraction or its undoing),
and the pooling a command line asked for instead of the project's.
Any change empties the cache. The cache folder ignores itself in git.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from benchdoc.config import Config
    from benchdoc.ledger.store import Ledger
    from benchdoc.pooling import Pooling

CACHE_DIR = Path(".benchdoc") / "cache"
CACHE_FILE = "derived.json"


def fingerprint(config: Config, ledger: Ledger, pooling: Pooling | None = None) -> str:
    """``pooling``: a command line's override of [stats] pool, which every cached region follows."""
    from benchdoc import __version__

    digest = hashlib.sha256()
    for part in (__version__, config.ledger_url, ledger.change_token(), pooling.spelling if pooling else ""):
        digest.update(part.encode() + b"\0")
    digest.update(config.path.read_bytes())
    return digest.hexdigest()


class DerivedCache:
    """Namespaced key -> JSON value store, emptied whenever the fingerprint changes."""

    def __init__(self, folder: Path, fingerprint: str) -> None:
        self.folder = folder
        self.fingerprint = fingerprint
        self.entries: dict[str, dict[str, Any]] = {}
        self.dirty = False
        path = folder / CACHE_FILE
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return  # no cache, or an unreadable one: start empty
        if isinstance(data, dict) and data.get("fingerprint") == fingerprint and isinstance(data.get("entries"), dict):
            self.entries = data["entries"]

    @classmethod
    def for_project(cls, config: Config, ledger: Ledger, pooling: Pooling | None = None) -> DerivedCache:
        return cls(config.root / CACHE_DIR, fingerprint(config, ledger, pooling))

    def get(self, namespace: str, key: str) -> Any:
        return self.entries.get(namespace, {}).get(key)

    def put(self, namespace: str, key: str, value: Any) -> None:
        if self.entries.get(namespace, {}).get(key) != value:
            self.entries.setdefault(namespace, {})[key] = value
            self.dirty = True

    def save(self) -> None:
        """Write the cache if it changed; a cache that cannot be written is silently skipped."""
        if not self.dirty:
            return
        from benchdoc.textfile import write_atomic

        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            ignore = self.folder / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# benchdoc's derived cache: safe to delete, never worth committing\n*\n")
            payload = json.dumps({"fingerprint": self.fingerprint, "entries": self.entries}, sort_keys=True)
            write_atomic(self.folder / CACHE_FILE, payload.encode("utf-8"))
            self.dirty = False
        except OSError:
            pass  # a read-only checkout still checks, just without the speed-up


def region_key(document: Path, kind: str, args: tuple[str, ...], attrs: dict[str, str]) -> str:
    """A stable key for what a region asks for (not what it holds)."""
    spec = json.dumps([str(document), kind, list(args), sorted(attrs.items())])
    return hashlib.sha256(spec.encode()).hexdigest()[:32]


def file_digest(path: Path | None = None, *, data: bytes | None = None) -> str | None:
    """SHA-256 of a file's bytes (None when it cannot be read), or of ``data``."""
    if data is None:
        try:
            data = path.read_bytes() if path is not None else None
        except OSError:
            return None
        if data is None:
            return None
    return hashlib.sha256(data).hexdigest()
