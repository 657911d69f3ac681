"""Shell completion of experiment names and aliases, read from the project's benchdoc.toml."""

from __future__ import annotations

import argparse
from typing import Any

from benchdoc.errors import BenchdocError

# Positional arguments that name experiments, by their metavar or dest.
EXPERIMENT_ARGUMENTS = {"EXPERIMENT", "EXPERIMENT|GLOB", "EXP", "CANDIDATE", "BASELINE", "experiment", "experiments",
                        "candidate", "baseline"}


def experiment_names(prefix: str, parsed_args: argparse.Namespace, **_: Any) -> list[str]:
    """Every experiment name and alias of the project that starts with ``prefix``."""
    from benchdoc.config import load_config

    try:
        config = load_config(getattr(parsed_args, "config", None))
    except (BenchdocError, OSError):
        return []  # no project here: nothing to offer, and nothing to print at a prompt
    names: list[str] = []
    for name, experiment in config.experiments.items():
        names.append(name)
        names.extend(experiment.aliases)
    return [n for n in names if n.startswith(prefix)]


def attach_experiment_completers(parser: argparse.ArgumentParser) -> None:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                attach_experiment_completers(sub)
        elif not action.option_strings and (action.metavar in EXPERIMENT_ARGUMENTS or action.dest in EXPERIMENT_ARGUMENTS):
            action.completer = experiment_names  # type: ignore[attr-defined]
