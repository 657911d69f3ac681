"""benchdoc.toml: discovery, schema, validation with errors that name file:line:key.

The file declares the ledger, the metrics, the experiments and the managed documents.
Loading never touches the ledger or the documents; it only reads and validates the file.
Every check of the file lives in this package: ``validate`` checks it as it loads,
``tables`` checks a [servers.NAME] or [workloads.NAME] table when a run uses it; both
locate an error through ``Config.error`` (file:line: key.path: message).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from benchdoc.config.model import (
    CONFIG_NAME,
    CORRECTIONS,
    DEFAULT_LEDGER_URL,
    DIRECTIONS,
    EXPERIMENT_NAME,
    EXPERIMENT_NAME_RULE,
    LEDGER_URL_ENV,
    ROLES,
    Config,
    DocumentsConfig,
    ExperimentConfig,
    MetricConfig,
    StatsConfig,
    resolve_ledger_url,
)
from benchdoc.config.validate import Validator
from benchdoc.errors import ConfigError

__all__ = [
    "CONFIG_NAME", "CORRECTIONS", "DEFAULT_LEDGER_URL", "DIRECTIONS", "EXPERIMENT_NAME", "EXPERIMENT_NAME_RULE",
    "LEDGER_URL_ENV", "ROLES", "Config", "DocumentsConfig", "ExperimentConfig", "MetricConfig", "StatsConfig",
    "find_config", "load_config", "parse_config", "resolve_ledger_url",
]


def find_config(start: Path | None = None) -> Path:
    """Walk up from ``start`` (the working directory) to the first benchdoc.toml, like git."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / CONFIG_NAME
        if candidate.is_file():
            return candidate
    raise ConfigError(
        f"no {CONFIG_NAME} found in {here} or any parent folder (run 'benchdoc init' to create one, "
        "or pass --config PATH)"
    )


def load_config(path: str | Path | None = None, *, start: Path | None = None) -> Config:
    """Find (unless ``path`` is given), read and validate benchdoc.toml."""
    config_path = Path(path) if path else find_config(start)
    if not config_path.is_file():
        raise ConfigError("no such file", config_path)
    try:
        data = config_path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read: {exc.strerror or exc}", config_path) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ConfigError(
            f"not valid UTF-8: byte 0x{data[exc.start]:02x} cannot be decoded (save the file as UTF-8)", config_path, line
        ) from None
    return parse_config(text, config_path)


def _toml_loads(text: str) -> dict[str, Any]:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    return tomllib.loads(text)


def parse_config(text: str, path: Path) -> Config:
    """Validate the text of a benchdoc.toml read from ``path``."""
    try:
        data = _toml_loads(text)
    except Exception as exc:  # tomllib.TOMLDecodeError; its message carries "(at line N, column M)"
        message = str(exc)
        match = re.search(r"at line (\d+)", message)
        raise ConfigError(f"invalid TOML: {message}", path, int(match.group(1)) if match else None) from exc
    return Validator(data, text, path).build()
