"""A command's table as plain text cells, drawn to fit the terminal or written as Markdown.

A command builds one :class:`TextTable`; :func:`print_fitted` draws it at a terminal and
:func:`markdown` writes it for a pull request, so both show the same cells.

At a terminal a table wider than the screen is split by metric instead of squeezed: the
first block holds the key columns (the experiment, the run), the other non-metric columns
and the metrics that still fit; each further block repeats the keys with the next metrics
that fit. No column is squeezed to nothing and no cell is cut: text that must still wrap
folds onto the next line. Piped, the console is wide enough for one block at natural width.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

Role = Literal["key", "head", "metric"]

# A wrapped text column is not squeezed narrower than this to make room for one more metric.
SOFT_MIN = 20


@dataclass(frozen=True)
class Column:
    """A column: its header, alignment, and role when a wide table is split (see module doc)."""

    header: str
    right: bool = False
    role: Role = "head"


@dataclass(frozen=True)
class TextTable:
    """A table of plain text cells, with the notes printed under it."""

    title: str
    columns: tuple[Column, ...]
    rows: tuple[tuple[str, ...], ...]
    row_styles: tuple[str | None, ...] = ()  # per row, e.g. "strike" for a retracted run
    notes: tuple[str, ...] = field(default=())


def print_fitted(out: Console, table: TextTable) -> None:
    """Draw ``table`` in as many blocks as the console's width needs, then its notes."""
    blocks = fitted_blocks(out, table)
    for number, columns in enumerate(blocks, start=1):
        title = table.title if len(blocks) == 1 else f"{table.title} ({number}/{len(blocks)})"
        out.print(_rich_table(table, columns, title, out.width))
    for note in table.notes:
        out.print(note, style="dim")


def fitted_blocks(out: Console, table: TextTable) -> list[list[int]]:
    """The column indices of each block: all of them when they fit the console's width."""
    everything = list(range(len(table.columns)))
    if _fits(table, everything, out.width):
        return [everything]
    keys = [i for i in everything if table.columns[i].role == "key"]
    blocks: list[list[int]] = []
    current = [i for i in everything if table.columns[i].role != "metric"]
    for index in (i for i in everything if table.columns[i].role == "metric"):
        trial = sorted([*current, index])
        if current != keys and not _fits(table, trial, out.width):
            blocks.append(current)
            trial = [*keys, index]
        current = trial
    blocks.append(current)
    return blocks


def _fits(table: TextTable, columns: list[int], width: int) -> bool:
    """Whether these columns fit ``width`` with every metric at natural width (no wrap) and
    each other column wrapped no narrower than its longest word or SOFT_MIN, whichever is wider."""
    total = 1 + 3 * len(columns)  # the left border, then each column's padding and right border
    for index in columns:
        natural, longest_word = _widths(table, index)
        total += natural if table.columns[index].role == "metric" else min(natural, max(longest_word, SOFT_MIN))
    return total <= width


def _widths(table: TextTable, index: int) -> tuple[int, int]:
    """A column's natural width (its longest line) and the width of its longest word."""
    from rich.cells import cell_len

    texts = [table.columns[index].header, *(row[index] for row in table.rows)]
    lines = [line for text in texts for line in text.splitlines() or [""]]
    words = [word for line in lines for word in line.split()]
    return max(map(cell_len, lines), default=0), max(map(cell_len, words), default=0)


def _rich_table(table: TextTable, columns: Sequence[int], title: str, width: int) -> Table:
    from rich.table import Table

    # Metrics are kept whole when the block lets them; other text wraps, folding what has to.
    whole = _fits(table, list(columns), width)
    drawn = Table(title=title or None, title_justify="left")
    for index in columns:
        column = table.columns[index]
        drawn.add_column(column.header, justify="right" if column.right else "left", overflow="fold",
                         no_wrap=whole and column.role == "metric")
    styles = table.row_styles or (None,) * len(table.rows)
    for row, style in zip(table.rows, styles):
        drawn.add_row(*(row[i] for i in columns), style=style)
    return drawn


def markdown(table: TextTable) -> str:
    """The table as GitHub-flavoured Markdown, its notes as one paragraph under it."""
    from benchdoc.mdtable import escape_cell, markdown_table

    text = markdown_table([c.header for c in table.columns], table.rows, [c.right for c in table.columns])
    if table.notes:
        text += "\n" + " ".join(escape_cell(note.rstrip(".")) + "." for note in table.notes) + "\n"
    return text
