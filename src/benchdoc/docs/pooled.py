"""A managed region's own pooling: ``runs=5`` or ``pool=all|latest|runs:N|since:DATE``.

A table, value or chart region may pool other runs than the project's ``[stats] pool``;
its caption then says so. The attribute is read here, the results it asks for come from
:meth:`benchdoc.results.LazyResults.pooled`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from benchdoc.errors import DocumentError
from benchdoc.pooling import POOL_FORMS, Pooling, PoolingError, parse_count, parse_pooling

if TYPE_CHECKING:
    from benchdoc.config import Config

POOL_ATTRIBUTES: tuple[str, ...] = ("runs", "pool")


def region_pooling(attrs: Mapping[str, str]) -> Pooling | None:
    """The pooling a region's attributes ask for, or None; DocumentError for a bad value."""
    runs, pool = attrs.get("runs"), attrs.get("pool")
    if runs is not None and pool is not None:
        raise DocumentError(f"runs={runs} and pool={pool}: give one of them, not both")
    if runs is not None:
        try:
            return Pooling("runs", count=parse_count(runs))
        except PoolingError:
            raise DocumentError(f"runs={runs!r}: expected a whole number of runs, at least 1") from None
    if pool is not None:
        try:
            return parse_pooling(pool)
        except PoolingError:
            raise DocumentError(f"pool={pool!r}: expected one of {POOL_FORMS.replace(chr(34), '')}") from None
    return None


def pooling_note(config: Config, pooling: Pooling) -> str | None:
    """What a caption adds when a region pools other runs than the project does, else None."""
    default = config.stats.pool
    if pooling == default:
        return None
    return f"not the project's [stats] pool = \"{default.spelling}\""
