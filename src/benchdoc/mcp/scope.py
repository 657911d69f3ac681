"""The one project folder an MCP server works in, and what its client may do there."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from benchdoc.errors import UsageError
from benchdoc.mcp.memo import Memo

if TYPE_CHECKING:
    from benchdoc.config import Config


@dataclass(frozen=True)
class Scope:
    """The project (its benchdoc.toml), the permissions the server was started with, and what it
    keeps between calls (:class:`Memo`). The config is checked on every call, so an edit of
    benchdoc.toml is seen at once (and changes every plan id, which covers its bytes).
    """

    config_path: Path  # absolute, inside ``root``
    allow_write: bool = False
    allow_run: bool = False
    memo: Memo = field(default_factory=Memo, compare=False, repr=False)

    @property
    def root(self) -> Path:
        return Path(os.path.realpath(self.config_path.parent))

    def config(self) -> Config:
        return self.memo.config(self.config_path)

    def require_write(self, tool: str) -> None:
        if not self.allow_write:
            raise UsageError(f"{tool} changes the project: the MCP server was started without --allow-write")

    def require_run(self) -> None:
        if not self.allow_run:
            raise UsageError("run starts servers and records runs: the MCP server was started without --allow-run")

    def inside(self, given: str | os.PathLike[str]) -> Path:
        """``given`` (relative to the project folder, or absolute) as a path relative to it; a path
        that leaves it, by ``..``, by being absolute elsewhere or through a symlink, is refused."""
        text = os.fspath(given)
        if not text or "\0" in text:
            raise UsageError(f"{text!r}: not a path")
        root = self.root
        real = Path(os.path.realpath(root / text))
        if real != root and root not in real.parents:
            raise UsageError(f"{text}: outside the project folder {root}; the MCP server works only inside it")
        return Path(os.path.relpath(real, root))

    def listed(self, config: Config) -> list[str]:
        """[documents] paths as benchdoc.toml spells them, relative to the project folder."""
        return [os.path.relpath(p, config.root) if Path(p).is_absolute() else str(p) for p in config.documents.paths]

    def documents(self, config: Config, given: Sequence[str] | None) -> list[Path]:
        """The documents to work on (those given, else [documents] paths), each inside the project."""
        from benchdoc.docs.project import document_paths

        chosen = [str(self.inside(p)) for p in given or self.listed(config)]
        if not chosen:
            return document_paths(config, None)  # the line `sync` gives for a project without documents
        return document_paths(config, chosen)
