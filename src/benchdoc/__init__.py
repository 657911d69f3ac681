"""benchdoc: run performance experiments, keep every result in a ledger, keep the log true.

The library is usable without the CLI; heavy modules (statistics, plotting, the load
generator) are imported only when used, so ``import benchdoc`` stays cheap.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
