"""`benchdoc completion SHELL`: print the shell code that completes benchdoc's commands.

Completion is dynamic (argcomplete): subcommands and options come from the parser, and
experiment names and aliases from the project's benchdoc.toml at the moment TAB is pressed.
"""

from __future__ import annotations

import argparse
import sys

ORDER = 95

SHELLS = ("bash", "zsh", "fish")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "completion",
        help="print the shell code that completes benchdoc's commands, options and experiment names",
        description="Print the code that makes SHELL complete benchdoc's subcommands, options and the "
        "experiment names of the project's benchdoc.toml.\n\n"
        "examples:\n"
        "  eval \"$(benchdoc completion bash)\"          # in ~/.bashrc\n"
        "  eval \"$(benchdoc completion zsh)\"           # in ~/.zshrc\n"
        "  benchdoc completion fish > ~/.config/fish/completions/benchdoc.fish",
    )
    parser.add_argument("shell", choices=SHELLS, help="the shell to complete in")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import argcomplete

    sys.stdout.write(argcomplete.shellcode(["benchdoc"], shell=args.shell))
    return 0
