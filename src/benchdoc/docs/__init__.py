"""Living documents: managed regions in Markdown, regenerated from the ledger.

The engine here knows markers, regions, checksums, diffs and atomic writes; what a
region contains is produced by a render callback (``Callable[[Region], str]``).

    plan = plan_document("log.md", render)      # nothing is written yet
    print(plan.diff)
    write_plan(plan)                            # atomic, only if something changed
"""

from __future__ import annotations

from benchdoc.docs.diff import colorize_diff, unified_diff
from benchdoc.docs.document import (
    Directive,
    Heading,
    ParsedDocument,
    Region,
    parse_bytes,
    parse_document,
    parse_source,
    parse_text,
)
from benchdoc.docs.markers import content_checksum, format_end_marker, format_open_marker
from benchdoc.docs.prose import ProseBlock, prose_blocks
from benchdoc.docs.sync import (
    DocumentPlan,
    DocumentProblems,
    RegionPlan,
    RegionStatus,
    RenderFn,
    plan_bytes,
    plan_document,
    plan_source,
    plan_text,
    write_plan,
)
from benchdoc.docs.textio import DocumentText, atomic_write_bytes, leftover_temp_files, read_document

__all__ = [
    "Directive",
    "DocumentPlan",
    "DocumentProblems",
    "DocumentText",
    "Heading",
    "ParsedDocument",
    "ProseBlock",
    "Region",
    "RegionPlan",
    "RegionStatus",
    "RenderFn",
    "atomic_write_bytes",
    "colorize_diff",
    "content_checksum",
    "format_end_marker",
    "format_open_marker",
    "leftover_temp_files",
    "parse_bytes",
    "parse_document",
    "parse_source",
    "parse_text",
    "plan_bytes",
    "plan_document",
    "plan_source",
    "plan_text",
    "prose_blocks",
    "read_document",
    "unified_diff",
    "write_plan",
]
