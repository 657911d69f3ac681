"""Prose spans for the lint: what a reader sees, outside code and managed regions."""

from __future__ import annotations

import textwrap

from benchdoc.docs import parse_text, prose_blocks

DOC = textwrap.dedent(
    """\
    # EAGLE-3 log

    EAGLE-3 is 40% slower than baseline (54.1 vs 89.5 tok/s).

    ## Results

    <!-- benchdoc:table experiments="baseline eagle3" -->
    | Config | tok/s |
    |---|---|
    | Baseline | **92.6** |
    <!-- benchdoc:end -->

    Now <!-- benchdoc:value eagle3 -->96.1<!-- benchdoc:end --> tok/s, run `bench --n 5` for 12 more.

    ```
    54.1 tok/s in a code block
    ```

        indented 54.1

    ### Failed

    - NCCL Tree: **FAILED** (CUDA graph incompatible)
    > quoted 3.8% gain

    | Hand | 89.5 |
    |---|---|
    | kept | 54.1 |

    <div>vendor says 120 tok/s <!-- note --></div>

    # Conclusion

    Faster by <!-- benchdoc:value delta -->3.8%<!-- benchdoc:end -->.
    """
)


def test_prose_excludes_code_and_managed_regions() -> None:
    blocks = prose_blocks(parse_text(DOC, "log.md"))
    texts = [b.text for b in blocks]
    assert texts == [
        "EAGLE-3 log",
        "EAGLE-3 is 40% slower than baseline (54.1 vs 89.5 tok/s).",
        "Results",
        "Now ",
        " tok/s, run ",
        " for 12 more.",
        "Failed",
        "NCCL Tree: **FAILED** (CUDA graph incompatible)",
        "quoted 3.8% gain",
        "Hand",
        "89.5",
        "kept",
        "54.1",
        "vendor says 120 tok/s ",
        "Conclusion",
        "Faster by ",
        ".",
    ]


def test_prose_positions_and_section_paths() -> None:
    doc = parse_text(DOC, "log.md")
    blocks = prose_blocks(doc)
    lines = DOC.splitlines()
    for block in blocks:
        assert lines[block.line - 1][block.column - 1 :].startswith(block.text)
    by_text = {b.text: b for b in blocks}
    assert by_text["EAGLE-3 is 40% slower than baseline (54.1 vs 89.5 tok/s)."].section_path == ("EAGLE-3 log",)
    assert by_text[" for 12 more."].section_path == ("EAGLE-3 log", "Results")
    assert by_text["quoted 3.8% gain"].section_path == ("EAGLE-3 log", "Results", "Failed")
    assert (by_text["54.1"].line, by_text["54.1"].column) == (28, 10)
    assert by_text["Faster by "].section_path == ("Conclusion",)
    # Stretches of one paragraph share a block number; separate cells do not.
    assert by_text["Now "].block == by_text[" for 12 more."].block
    assert by_text["Hand"].block != by_text["89.5"].block


def test_paragraph_spanning_lines_keeps_each_line() -> None:
    doc = parse_text("> first line 1.5\n> second `x` line 2.5\n", "q.md")
    assert [(b.line, b.column, b.text) for b in prose_blocks(doc)] == [
        (1, 3, "first line 1.5"),
        (2, 3, "second "),
        (2, 13, " line 2.5"),
    ]
