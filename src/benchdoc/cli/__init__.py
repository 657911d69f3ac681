"""The command-line surface: parse arguments, call the library, present the result.

Each subcommand lives in its own module under ``benchdoc.cli`` and exposes
``ORDER`` (its place in ``--help``) and ``register(subparsers)``, which adds its parser and sets ``func`` to a callable
``func(args) -> int``. Modules import heavy dependencies inside ``func`` so that
``benchdoc --help`` and ``benchdoc check`` start fast.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from collections.abc import Sequence
from types import ModuleType

from benchdoc import __version__
from benchdoc.cli._help import use_paragraph_help
from benchdoc.errors import EXIT_INTERRUPTED, EXIT_USAGE, BenchdocError


def _command_modules() -> list[ModuleType]:
    """Every module of this package that defines a subcommand, in `--help` order.

    A command module sets ``ORDER`` (an int) and ``register``; discovering them keeps
    this file free of a list every new command would have to edit.
    """
    names = [m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_")]
    modules = [importlib.import_module(f"benchdoc.cli.{name}") for name in names]
    modules = [m for m in modules if hasattr(m, "register")]
    modules.sort(key=lambda m: (getattr(m, "ORDER", 100), m.__name__))
    return modules

EPILOG = """\
exit codes:
  0  success (documents up to date, or written)
  1  a check failed (stale document, lint finding) or validation failed
  2  usage error
  3  a document is broken or was edited by hand inside a managed region
  75 the ledger could not be reached: the measured run is kept in .benchdoc/spool/
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="benchdoc",
        description="Run performance experiments, keep every result in a ledger, "
        "and keep the Markdown experiment log true.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"benchdoc {__version__}")
    parser.add_argument(
        "--config",
        metavar="PATH",
        help="benchdoc.toml to use (default: found by walking up from the current directory)",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in _command_modules():
        module.register(subparsers)
    for sub in subparsers.choices.values():
        # `benchdoc show --config x.toml` as well as `benchdoc --config x.toml show`; SUPPRESS
        # keeps the subcommand's absent option from erasing the one given before it.
        sub.add_argument("--config", metavar="PATH", default=argparse.SUPPRESS,
                         help="benchdoc.toml to use (default: found by walking up from the current directory)")
    use_paragraph_help(parser)
    return parser


def _complete(parser: argparse.ArgumentParser) -> None:
    """Answer a shell's TAB (argcomplete sets _ARGCOMPLETE) and exit; otherwise do nothing."""
    if "_ARGCOMPLETE" not in os.environ:
        return
    import argcomplete

    from benchdoc.cli._completers import attach_experiment_completers

    attach_experiment_completers(parser)
    argcomplete.autocomplete(parser)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    _complete(parser)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    from benchdoc.cli._output import redacted_output

    with redacted_output():
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    """Run the command; a BenchdocError becomes its one line and exit code."""
    try:
        return int(args.func(args))
    except BenchdocError as err:
        print(f"benchdoc: error: {err}", file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        print("benchdoc: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # Output piped into `head` and closed early: not an error worth a traceback.
        return 0
