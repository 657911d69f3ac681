"""Plan and write the regeneration of a document's managed regions.

`plan_document` reads a document, asks a render callback for each region's new
content, and returns a plan: the old and new text, each region's status, every
error, and a diff. Nothing is written until `write_plan`, which refuses a plan with
errors or unforced hand edits and otherwise replaces the file atomically, only if
its bytes change.

Each end marker records a checksum of what benchdoc wrote (``sum=...``, over the
LF-normalised content). Content that no longer matches it was edited by hand and
is only overwritten with ``force=True``; a region without a checksum is filled.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

from benchdoc.docs.diff import unified_diff
from benchdoc.docs.document import ParsedDocument, Region, parse_source
from benchdoc.docs.markers import COMMENT_RE, content_checksum, format_end_marker, is_addressed_to_benchdoc
from benchdoc.docs.textio import DocumentText, atomic_write_bytes, decode_bytes, decode_text, read_document
from benchdoc.errors import DocumentError
from benchdoc.textfile import same_content

RenderFn = Callable[[Region], str]
"""Returns a region's new content: the lines between the markers for a block region
(without the indentation of the opening marker, which is added), the text between
them for an inline region. Raises DocumentError for a region it cannot render."""

FIX_STALE = "regenerate it with `benchdoc sync --write`"
FIX_HAND_EDITED = (
    "move the hand-written text outside the region, "
    "or overwrite it with `benchdoc sync --write --force`"
)


class RegionStatus(str, enum.Enum):
    UNCHANGED = "unchanged"
    STALE = "stale"  # benchdoc would rewrite it (new numbers, or a checksum to record)
    HAND_EDITED = "hand-edited"  # its content no longer matches the checksum benchdoc recorded
    ERROR = "error"  # it could not be rendered


class DocumentProblems(DocumentError):
    """Several document errors at once, each with its own file:line."""

    def __init__(self, errors: Sequence[DocumentError]) -> None:
        self.errors = tuple(errors)
        super().__init__("\n".join(str(error) for error in self.errors))


@dataclass(frozen=True)
class RegionPlan:
    region: Region
    status: RegionStatus
    new_content: str | None  # what benchdoc would write (LF, indented); None if rendering failed
    written: bool  # whether the plan's new text carries new_content (or a new checksum) for it
    error: DocumentError | None = None
    hand_edit_diff: str = ""  # for hand-edited regions: rendered content -> content as edited

    @property
    def how_to_fix(self) -> str:
        if self.status is RegionStatus.STALE:
            return FIX_STALE
        if self.status is RegionStatus.HAND_EDITED:
            return FIX_HAND_EDITED
        return ""

    def summary(self) -> str:
        """One line naming the region and what is wrong with it, if anything."""
        region = self.region
        if self.status is RegionStatus.ERROR and self.error is not None:
            return str(self.error)
        return f"{region.location}: {region.kind} region is {self.status.value}" + (
            f": {self.how_to_fix}" if self.how_to_fix else ""
        )


@dataclass(frozen=True)
class DocumentPlan:
    path: str
    source: DocumentText
    parsed: ParsedDocument
    new_text: str  # in the document's own line-ending style, like source.original
    regions: tuple[RegionPlan, ...]
    errors: tuple[DocumentError, ...]  # broken markers, render errors, unforced hand edits
    force: bool = False

    @property
    def old_text(self) -> str:
        return self.source.original

    @property
    def old_bytes(self) -> bytes:
        return self.source.data

    @property
    def new_bytes(self) -> bytes:
        return self.source.encode(self.new_text)

    @property
    def changed(self) -> bool:
        return self.new_text != self.source.original

    @property
    def stale(self) -> list[RegionPlan]:
        return [plan for plan in self.regions if plan.status is RegionStatus.STALE]

    @property
    def hand_edited(self) -> list[RegionPlan]:
        return [plan for plan in self.regions if plan.status is RegionStatus.HAND_EDITED]

    @property
    def ok(self) -> bool:
        """Whether the plan may be written (no errors, no unforced hand edits)."""
        return not self.errors

    @cached_property
    def diff(self) -> str:
        """Unified diff of the whole document, "" when nothing changes."""
        return unified_diff(self.old_text, self.new_text, self.path)

    def raise_for_errors(self) -> None:
        if len(self.errors) == 1:
            raise self.errors[0]
        if self.errors:
            raise DocumentProblems(self.errors)


def plan_document(path: str | os.PathLike[str], render: RenderFn, *, force: bool = False) -> DocumentPlan:
    """Plan the regeneration of a document on disk; raises DocumentError only if it cannot be read."""
    return plan_source(read_document(path), render, force=force)


def plan_bytes(
    data: bytes, render: RenderFn, *, path: str | os.PathLike[str] = "<bytes>", force: bool = False
) -> DocumentPlan:
    return plan_source(decode_bytes(data, path), render, force=force)


def plan_text(
    text: str, render: RenderFn, *, path: str | os.PathLike[str] = "<text>", force: bool = False
) -> DocumentPlan:
    return plan_source(decode_text(text, path), render, force=force)


def plan_source(source: DocumentText, render: RenderFn, *, force: bool = False) -> DocumentPlan:
    parsed = parse_source(source)
    errors: list[DocumentError] = list(parsed.errors)
    region_plans = [_plan_region(region, render, force) for region in parsed.regions]
    errors.extend(plan.error for plan in region_plans if plan.error is not None)
    new_text = _splice(source, region_plans)
    if not errors and new_text != source.original:
        errors.extend(_structure_errors(source, new_text, region_plans))
    return DocumentPlan(
        path=source.path,
        source=source,
        parsed=parsed,
        new_text=new_text,
        regions=tuple(region_plans),
        errors=tuple(sorted(errors, key=lambda e: e.line or 0)),
        force=force,
    )


def _plan_region(region: Region, render: RenderFn, force: bool) -> RegionPlan:
    try:
        rendered = render(region)
    except DocumentError as err:
        located = DocumentError(err.message, file=region.path, line=region.line)
        return RegionPlan(region, RegionStatus.ERROR, None, False, error=located)
    try:
        new_content = _normalise(region, rendered)
    except DocumentError as err:
        return RegionPlan(region, RegionStatus.ERROR, None, False, error=err)
    old_content = region.content
    edited_by_hand = (
        region.checksum is not None
        and region.checksum != content_checksum(old_content)
        and old_content != new_content
    )
    if edited_by_hand:
        edit = unified_diff(
            new_content,
            old_content,
            region.path,
            old_label=f"{region.location} ({region.kind} region as benchdoc renders it)",
            new_label=f"{region.location} ({region.kind} region as edited by hand)",
        )
        if force:
            return RegionPlan(region, RegionStatus.HAND_EDITED, new_content, True, hand_edit_diff=edit)
        problem = region.error(
            f"{region.kind} region was edited by hand since benchdoc wrote it; "
            f"benchdoc will not overwrite it: {FIX_HAND_EDITED}"
        )
        return RegionPlan(region, RegionStatus.HAND_EDITED, new_content, False, error=problem, hand_edit_diff=edit)
    if old_content == new_content and region.checksum == content_checksum(new_content):
        return RegionPlan(region, RegionStatus.UNCHANGED, new_content, False)
    return RegionPlan(region, RegionStatus.STALE, new_content, True)


def _normalise(region: Region, rendered: str) -> str:
    """The exact LF text to put between the markers, or a DocumentError if it cannot go there."""
    if not isinstance(rendered, str):
        raise region.error(f"rendering produced {type(rendered).__name__}, not text")
    text = rendered.replace("\r\n", "\n").replace("\r", "\n")
    for comment in COMMENT_RE.finditer(text):
        if is_addressed_to_benchdoc(comment.group("body")):
            raise region.error("rendered content contains a benchdoc marker, which would nest regions")
    if region.inline:
        if "\n" in text:
            raise region.error(f"an inline {region.kind} region must render to one line, got several")
        return text
    if text and not text.endswith("\n"):
        # The end marker must stay on a line of its own, or the next parse would differ.
        text += "\n"
    if region.indent:
        text = "".join(
            region.indent + line if line.strip() else line for line in text.splitlines(keepends=True)
        )
    return text


def _splice(source: DocumentText, plans: Sequence[RegionPlan]) -> str:
    """The original text with each written region's content and end marker replaced."""
    edits: list[tuple[int, int, str]] = []  # offsets in the LF text
    for plan in plans:
        if not plan.written or plan.new_content is None:
            continue
        region = plan.region
        if plan.new_content != region.content:
            edits.append((region.content_start, region.content_end, plan.new_content))
        end_marker = format_end_marker(content_checksum(plan.new_content))
        if source.text[region.end_start : region.end_end] != end_marker:
            edits.append((region.end_start, region.end_end, end_marker))
    original = source.original
    pieces: list[str] = []
    pos = 0
    for start, end, replacement in sorted(edits):
        original_start = source.original_offset(start)
        pieces.append(original[pos:original_start])
        pieces.append(replacement.replace("\n", source.newline))
        pos = source.original_offset(end)
    pieces.append(original[pos:])
    return "".join(pieces)


def _structure_errors(
    source: DocumentText, new_text: str, plans: Sequence[RegionPlan]
) -> list[DocumentError]:
    """Check that the new text parses back into the same regions holding what was written.

    Rendered content could otherwise open a code fence or HTML block that swallows
    the end marker, and the next sync would see a different document.
    """
    reparsed = parse_source(source.with_original(new_text))
    intact = not reparsed.errors and len(reparsed.regions) == len(plans)
    if intact and all(
        again.content == plan.new_content for plan, again in zip(plans, reparsed.regions) if plan.written
    ):
        return []
    written = [plan for plan in plans if plan.written]
    culprit = next(
        (plan for plan, again in zip(plans, reparsed.regions) if plan.written and again.content != plan.new_content),
        written[0] if written else None,
    )
    message = (
        "the rendered content would change the document's structure "
        "(an unclosed code fence or HTML block in it?); nothing was written"
    )
    if culprit is None:
        return [DocumentError(message, file=source.path)]
    return [culprit.region.error(f"{culprit.region.kind} region: {message}")]


def write_plan(plan: DocumentPlan) -> bool:
    """Write a plan's new text if it changes the file; True if the file was replaced.

    Raises DocumentError (DocumentProblems for several) if the plan has errors or
    unforced hand edits, or if the file changed on disk since it was planned.
    """
    plan.raise_for_errors()
    if not plan.changed:
        return False
    if not same_content(plan.path, plan.old_bytes):
        raise DocumentError("changed on disk since it was read; nothing was written, run again", file=plan.path)
    try:
        atomic_write_bytes(plan.path, plan.new_bytes)
    except OSError as err:
        raise DocumentError(f"cannot write: {err.strerror}; the document is unchanged", file=plan.path) from None
    return True
