"""Chunking: offsets, determinism, sections, edit locality, long paragraphs, whole turns."""

from __future__ import annotations

import hashlib

import pytest

from services.ingest.chunking import ChunkSpan, chunk_conversation, chunk_prose
from services.ingest.formats import html_to_text, parse_turns

WORDS = [
    "ledger", "cutover", "pipeline", "rollback", "invoice", "vendor", "budget", "quarter",
    "review", "audit", "migration", "schema", "replica", "latency", "billing", "region",
]  # fmt: skip


def _paragraph(seed: int, sentences: int = 3) -> str:
    # Deterministic filler whose length varies with the seed.
    parts = []
    for index in range(sentences):
        count = 6 + (seed * 7 + index * 3) % 9
        words = [WORDS[(seed * 5 + index * 11 + k) % len(WORDS)] for k in range(count)]
        parts.append(f"Item {seed}.{index}: " + " ".join(words) + ".")
    return " ".join(parts)


def _document(paragraph_count: int) -> str:
    return "\n\n".join(_paragraph(seed) for seed in range(paragraph_count))


def _assert_well_formed(text: str, chunks: list[ChunkSpan], max_chars: int) -> None:
    previous_end = 0
    for ordinal, chunk in enumerate(chunks):
        assert chunk.ordinal == ordinal
        assert chunk.text == text[chunk.char_start : chunk.char_end]
        assert chunk.char_start >= previous_end
        assert len(chunk.text) <= max_chars
        assert chunk.paragraphs[0][0] == chunk.char_start
        assert chunk.paragraphs[-1][1] == chunk.char_end
        expected = hashlib.sha256(f"{chunk.section_path}\n{chunk.text}".encode()).hexdigest()
        assert chunk.content_sha256 == expected
        previous_end = chunk.char_end


def test_chunk_prose_offsets_round_trip_and_cover_every_paragraph() -> None:
    text = _document(40)
    chunks = chunk_prose(text, "text/plain", max_chars=600)
    _assert_well_formed(text, chunks, 600)
    units = [span for chunk in chunks for span in chunk.paragraphs]
    assert [text[start:end] for start, end in units] == text.split("\n\n")
    assert len(chunks) > 3


def test_chunk_prose_same_input_gives_identical_chunks() -> None:
    text = _document(30)
    assert chunk_prose(text, "text/markdown", 500) == chunk_prose(text, "text/markdown", 500)


def test_chunk_prose_short_document_is_one_chunk_trimmed_of_outer_whitespace() -> None:
    text = "\n\n  First paragraph.\n\nSecond paragraph.  \n\n"
    (chunk,) = chunk_prose(text, "text/plain")
    assert chunk.text == "First paragraph.\n\nSecond paragraph."
    assert chunk.section_path == ""


def test_chunk_prose_empty_text_gives_no_chunks() -> None:
    assert chunk_prose("  \n\n \n", "text/markdown") == []


def test_chunk_prose_markdown_headings_bound_chunks_and_name_sections() -> None:
    text = (
        "Preamble line.\n\n# Spec\nIntro to the spec.\n\n## Cutover\nCutover is on Friday.\n\n"
        "## Rollback\nRollback takes an hour.\n\n# Notes\nNothing else."
    )
    chunks = chunk_prose(text, "text/markdown")
    assert [chunk.section_path for chunk in chunks] == [
        "",
        "Spec",
        "Spec > Cutover",
        "Spec > Rollback",
        "Notes",
    ]
    assert chunks[2].text == "## Cutover\nCutover is on Friday."


def test_chunk_prose_plain_text_hash_lines_are_not_headings() -> None:
    text = "# not a heading in plain text\n\nbody"
    (chunk,) = chunk_prose(text, "text/plain")
    assert chunk.section_path == ""


def test_chunk_prose_fenced_code_is_one_unit_and_its_hash_lines_are_not_headings() -> None:
    text = "# Setup\n\n```\n# install\n\npip install x\n```\n\nDone."
    chunks = chunk_prose(text, "text/markdown")
    assert {chunk.section_path for chunk in chunks} == {"Setup"}
    units = [text[start:end] for chunk in chunks for start, end in chunk.paragraphs]
    assert "```\n# install\n\npip install x\n```" in units


def test_chunk_prose_html_headings_become_sections() -> None:
    text = html_to_text("<h1>Spec</h1><p>Intro.</p><h2>Cutover</h2><p>On Friday.</p>")
    chunks = chunk_prose(text, "text/html")
    assert [(chunk.section_path, chunk.text) for chunk in chunks] == [
        ("Spec", "# Spec\n\nIntro."),
        ("Spec > Cutover", "## Cutover\n\nOn Friday."),
    ]


def test_chunk_prose_heading_stays_with_the_paragraph_after_it() -> None:
    text = "# Title\n\n" + _document(12)
    chunks = chunk_prose(text, "text/markdown", max_chars=400)
    assert chunks[0].text.startswith("# Title\n\n")
    assert len(chunks[0].paragraphs) >= 2


def test_chunk_prose_same_text_in_another_section_hashes_differently() -> None:
    text = "# A\n\nSame body.\n\n# B\n\nSame body."
    first, second = chunk_prose(text, "text/markdown")
    assert first.content_sha256 != second.content_sha256


@pytest.mark.parametrize("edited_index", [3, 23, 30, 55])
def test_chunk_prose_editing_one_paragraph_changes_only_chunks_near_it(edited_index: int) -> None:
    paragraphs = [_paragraph(seed) for seed in range(60)]
    before_text = "\n\n".join(paragraphs)
    before = chunk_prose(before_text, "text/plain", max_chars=700)
    edited = list(paragraphs)
    edited[edited_index] += (
        " A new sentence was appended to this paragraph" + " in the next version" * 8
    )
    after_text = "\n\n".join(edited)
    after = chunk_prose(after_text, "text/plain", max_chars=700)
    _assert_well_formed(after_text, after, 700)

    before_hashes = {chunk.content_sha256 for chunk in before}
    after_hashes = {chunk.content_sha256 for chunk in after}
    edited_start = after_text.index(edited[edited_index])
    (home_after,) = [c for c in after if c.char_start <= edited_start < c.char_end]
    assert home_after.content_sha256 not in before_hashes
    # A position-greedy packer would shift every boundary after the edit; here only chunks
    # within two of the edited one may change, and everything farther is reused by hash.
    old_start = before_text.index(paragraphs[edited_index])
    (home,) = [i for i, c in enumerate(before) if c.char_start <= old_start < c.char_end]
    lost = [i for i, c in enumerate(before) if c.content_sha256 not in after_hashes]
    assert all(abs(index - home) <= 2 for index in lost)
    assert len(after_hashes - before_hashes) <= 3


def test_chunk_prose_long_paragraph_splits_at_sentence_ends() -> None:
    sentences = [
        f"Sentence number {index} talks about the ledger cutover plan." for index in range(40)
    ]
    text = " ".join(sentences)
    chunks = chunk_prose(text, "text/plain", max_chars=300)
    _assert_well_formed(text, chunks, 300)
    assert len(chunks) > 1
    for chunk in chunks:
        assert chunk.text.startswith("Sentence number")
        assert chunk.text.endswith("plan.")


def test_chunk_prose_sentence_longer_than_limit_is_cut_at_whitespace_then_hard() -> None:
    words = " ".join(f"word{index}" for index in range(200))
    unbroken = "x" * 250
    text = f"{words}\n\n{unbroken}"
    chunks = chunk_prose(text, "text/plain", max_chars=100)
    _assert_well_formed(text, chunks, 100)
    for chunk in chunks:
        for start, end in chunk.paragraphs:
            piece = text[start:end]
            assert piece.startswith(("word", "x"))
            assert piece[-1].isalnum()
    assert "".join(c.text for c in chunks if c.text.startswith("x")) == unbroken


def test_chunk_prose_rejects_non_positive_limit() -> None:
    with pytest.raises(ValueError, match="max_chars"):
        chunk_prose("text", "text/plain", max_chars=0)


def _conversation(turn_count: int) -> str:
    return "\n".join(
        f"[D1:{index} | 2023-05-08T13:56:00Z] {'Caroline' if index % 2 else 'Melanie'}: "
        + _paragraph(index, sentences=1 + index % 3)
        for index in range(1, turn_count + 1)
    )


def test_chunk_conversation_runs_of_whole_turn_lines() -> None:
    text = _conversation(50)
    turns = parse_turns(text)
    chunks = chunk_conversation(text, turns, max_chars=800)
    _assert_well_formed(text, chunks, 800)
    lines = {(turn.line_start, turn.line_end) for turn in turns}
    assert [span for chunk in chunks for span in chunk.paragraphs] == sorted(lines)
    for chunk in chunks:
        assert chunk.text.startswith("[D1:")
        assert chunk.section_path == ""


def test_chunk_conversation_never_splits_a_turn_longer_than_the_limit() -> None:
    long_turn = "[t2 | ] Dana: " + " ".join(["The budget review covers every region."] * 20)
    text = f"[t1 | ] Ravi: short\n{long_turn}\n[t3 | ] Ravi: ok"
    chunks = chunk_conversation(text, parse_turns(text), max_chars=200)
    assert long_turn in [chunk.text for chunk in chunks]
    assert all(chunk.text == text[chunk.char_start : chunk.char_end] for chunk in chunks)


def test_chunk_conversation_new_turn_leaves_earlier_chunks_reusable() -> None:
    text = _conversation(40)
    before = chunk_conversation(text, parse_turns(text), max_chars=700)
    longer = text + "\n[D1:41 | 2023-05-08T14:30:00Z] Melanie: One more thing."
    after = chunk_conversation(longer, parse_turns(longer), max_chars=700)
    kept = {chunk.content_sha256 for chunk in before} & {chunk.content_sha256 for chunk in after}
    assert len(kept) >= len(before) - 1


def test_chunk_conversation_no_turns_gives_no_chunks() -> None:
    assert chunk_conversation("", [], max_chars=100) == []
