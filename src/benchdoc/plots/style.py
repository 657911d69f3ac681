"""The look every chart shares: the palette, text colour, and the caption and legend helpers.

``draw`` and ``draw_cdf`` both draw with these; matplotlib objects arrive as arguments, so
importing this module imports no matplotlib.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.figure import Figure

GAP_TEXT_LIMIT = 80

# Okabe & Ito's palette: distinguishable with every common form of colour blindness.
OKABE_ITO: dict[str, str] = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "bluish_green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish_purple": "#CC79A7",
}
NEUTRAL_GREY = "#999999"
TEXT_COLOUR = "#222222"


def caption_width(figure: Figure) -> int:
    inches = figure.get_size_inches()[0]
    return max(60, int(inches * 72 / (8 * 0.55)))  # 8pt text, ~0.55em per character


def wrap(text: str, width: int) -> str:
    return textwrap.fill(text, width=width, break_on_hyphens=False, break_long_words=True)


def shorten(text: str, limit: int = GAP_TEXT_LIMIT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def legend(figure: Figure, handles: list[Any]) -> None:
    """One row (or a few) above the plot: a legend beside it took a third of the width."""
    figure.legend(handles=handles, loc="outside upper center", ncols=min(len(handles), 4), handlelength=1.6,
                  columnspacing=1.4)
