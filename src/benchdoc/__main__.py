"""Allow ``python -m benchdoc``."""

from benchdoc.cli import main

raise SystemExit(main())
