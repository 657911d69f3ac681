"""How `--help` lays out a command's description and epilog.

Prose paragraphs are wrapped to the terminal; indented blocks (examples, markers) and
lines that end a heading (``examples:``) keep their line breaks, so a description can hold
both without one of them being mangled.
"""

from __future__ import annotations

import argparse
import textwrap


class ParagraphFormatter(argparse.HelpFormatter):
    """Wrap prose paragraphs, keep indented blocks and short list-like lines as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        paragraphs = text.split("\n\n")
        out: list[str] = []
        for paragraph in paragraphs:
            lines = paragraph.splitlines()
            if not lines:
                out.append("")
                continue
            if _keeps_layout(lines):
                out.append("\n".join(indent + line for line in lines))
            else:
                joined = " ".join(line.strip() for line in lines)
                out.append(textwrap.fill(joined, width, initial_indent=indent, subsequent_indent=indent))
        return "\n\n".join(out)


def _keeps_layout(lines: list[str]) -> bool:
    """An example block, a heading with items under it, or a list: its line breaks mean something."""
    if any(line.startswith((" ", "\t")) for line in lines):
        return True
    if lines[0].rstrip().endswith(":") and len(lines) > 1:
        return True
    return any(line.lstrip().startswith(("- ", "* ", "$ ")) for line in lines)


def use_paragraph_help(parser: argparse.ArgumentParser) -> None:
    """Give ``parser`` and every subcommand parser under it the paragraph layout."""
    parser.formatter_class = ParagraphFormatter
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                use_paragraph_help(sub)
