"""benchdoc.lint.text: sentences and table cells with their exact place, and what is blanked."""

from __future__ import annotations

from benchdoc.docs import parse_text
from benchdoc.lint.text import document_units, sentence_spans


def units(text: str, historical: tuple[str, ...] = ("History",)):  # type: ignore[no-untyped-def]
    return document_units(parse_text(text, "log.md"), historical)


def test_sentences_keep_their_line_and_column() -> None:
    doc = units("# Title\n\nFirst one. Second one\ncontinues here; third.\n")
    texts = [u.text for u in doc.units]
    assert texts == ["Title", "First one.", "Second one continues here;", "third."]
    second = doc.units[2]
    assert second.position(0) == (3, 12)
    assert second.position(second.text.index("continues")) == (4, 1)
    assert doc.units[0].heading and doc.units[1].section == ("Title",)


def test_decimals_units_and_abbreviations_do_not_end_sentences() -> None:
    text = "EAGLE-3 reaches 96.1 tok/s. The baseline, e.g. at 92.6 tok/s, vs. the old 89.5. Done after 120 s. Next"
    spans = [text[a:b] for a, b in sentence_spans(text)]
    assert spans == ["EAGLE-3 reaches 96.1 tok/s.", "The baseline, e.g. at 92.6 tok/s, vs. the old 89.5.",
                     "Done after 120 s.", "Next"]


def test_code_comments_managed_regions_links_and_struck_text_are_blanked() -> None:
    doc = units(
        "EAGLE-3 `54.1 tok/s` reaches <!-- benchdoc:value eagle3.output_tok_s -->96.1<!-- benchdoc:end --> tok/s, "
        "see [the 54.1 run](runs/54.1-tok-s.json \"54.1 tok/s\") and <https://x.io/54.1> or https://y.io/?v=54.1 "
        "~~54.1 tok/s~~ **92.6** tok/s.\n\n```\nEAGLE-3 54.1 tok/s\n```\n"
    )
    (sentence,) = doc.units
    assert "54.1 tok/s" not in sentence.text  # code span, link target and title, URLs, struck text
    assert "96.1" not in sentence.text  # the managed value is not prose
    assert "the 54.1 run" in sentence.text  # visible link text stays
    assert "92.6   tok/s" in sentence.text  # emphasis marks blanked, offsets unchanged
    line, column = sentence.position(sentence.text.index("92.6"))
    assert (line, column) == (1, len("EAGLE-3 `54.1 tok/s` reaches <!-- benchdoc:value eagle3.output_tok_s -->96.1"
                                     "<!-- benchdoc:end --> tok/s, see [the 54.1 run](runs/54.1-tok-s.json \"54.1 tok/s\") "
                                     "and <https://x.io/54.1> or https://y.io/?v=54.1 ~~54.1 tok/s~~ **") + 1)


def test_table_cells_know_their_row_and_header() -> None:
    doc = units("| Config | tok/s | Notes |\n|---|--:|---|\n| EAGLE-3 | **54.1** | old run |\n| Baseline | 92.6 | |\n")
    cells = [(u.row, u.column_index, u.header, u.text.strip()) for u in doc.units]
    assert cells == [
        (1, 0, "Config", "EAGLE-3"), (1, 1, "tok/s", "54.1"), (1, 2, "Notes", "old run"),
        (2, 0, "Config", "Baseline"), (2, 1, "tok/s", "92.6"),
    ]  # the header row itself is not a statement
    assert doc.units[1].position(doc.units[1].text.index("54.1")) == (3, 15)


def test_ignore_directives_cover_the_next_paragraph_or_their_line() -> None:
    doc = units(
        "Before.\n\n<!-- benchdoc:ignore -->\nIgnored one\nand its second line.\n\nKept.\n"
        "Inline <!-- benchdoc:ignore reason=\"quoted\" --> ignored.\nKept too.\n"
    )
    assert doc.ignored_lines == {4, 5, 8}


def test_historical_sections_by_word_in_the_heading_path() -> None:
    doc = units("# Log\n\nNow.\n\n## Project history\n\nThen.\n\n### Details\n\nStill then.\n\n## Results\n\nNow again.\n")
    flags = {u.text: u.historical for u in doc.units if not u.heading}
    assert flags == {"Now.": False, "Then.": True, "Still then.": True, "Now again.": False}


def test_a_line_opened_by_a_journal_mark_is_an_entry_of_its_own() -> None:
    # "– note", "× done", "· task", "• point" on the lines of one paragraph: no period ends them, each is its own.
    doc = units("Monday\n– first note 5%\n× second task done\n· third\n• fourth, and some\nmore words\n")
    assert [u.text for u in doc.units] == ["Monday", "– first note 5%", "× second task done", "· third",
                                           "• fourth, and some more words"]
    assert doc.units[2].position(0) == (3, 1)
    # must stay: a mark inside a line, or a wrapped line, is no new entry.
    doc = units("Prefill 2 × 4 GPUs – the plan –\nstill one sentence.\n")
    assert [u.text for u in doc.units] == ["Prefill 2 × 4 GPUs – the plan – still one sentence."]
