"""Media-type routing, text decoding, HTML conversion and the conversation turn format."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.ingest.formats import (
    CONVERSATION_MEDIA_TYPE,
    MalformedTurn,
    UndecodableText,
    classify,
    decode_text,
    html_to_text,
    parse_turns,
)

CONVERSATION = (
    "[D1:1 | 2023-05-08T13:56:00Z] Caroline: Hey Mel! Lunch at 12:30?\n"
    "\n"
    "[D1:2 | 2023-05-08T15:56:00+02:00] Melanie:   Sure, see you there.  \n"
    "[D1:3 | ] Caroline: Great\n"
)


@pytest.mark.parametrize(
    ("media_type", "expected"),
    [
        ("text/plain", "prose"),
        ("text/markdown", "prose"),
        ("Text/HTML; charset=utf-8", "prose"),
        (CONVERSATION_MEDIA_TYPE, "conversation"),
        ("application/json", "chunk_only"),
        ("text/csv", "chunk_only"),
        ("application/xml", "chunk_only"),
        ("text/x-python", "chunk_only"),
        ("application/vnd.api+json", "chunk_only"),
        ("image/png", "parked"),
        ("application/pdf", "parked"),
        ("application/octet-stream", "parked"),
        ("made/up", "parked"),
        ("", "parked"),
    ],
)
def test_classify_routes_media_type_to_its_pipeline(media_type: str, expected: str) -> None:
    assert classify(media_type) == expected


def test_classify_plain_text_made_only_of_turns_is_conversation() -> None:
    assert classify("text/plain", CONVERSATION) == "conversation"


def test_classify_plain_text_with_one_non_turn_line_stays_prose() -> None:
    assert classify("text/plain", CONVERSATION + "Minutes taken by Dana.\n") == "prose"
    assert classify("text/plain", "\n\n") == "prose"


def test_decode_text_strips_bom_and_normalizes_line_ends() -> None:
    assert decode_text(b"\xef\xbb\xbfcaf\xc3\xa9\r\nnext\rlast") == "café\nnext\nlast"


def test_decode_text_invalid_utf8_raises_undecodable_naming_the_offset() -> None:
    with pytest.raises(UndecodableText, match="offset 3"):
        decode_text(b"abc\xff")


def test_decode_text_nul_character_is_undecodable() -> None:
    with pytest.raises(UndecodableText):
        decode_text(b"PNG\x00\x01")


def test_undecodable_text_is_a_value_error() -> None:
    assert issubclass(UndecodableText, ValueError)


def test_html_to_text_drops_scripts_and_turns_blocks_into_paragraphs() -> None:
    html = (
        "<html><head><title>Ignored</title><style>p {color: red}</style></head><body>"
        "<h1>Spec &amp; plan</h1><p>Hello   <b>world</b>,<br>second line &lt;ok&gt;</p>"
        "<script>var secret = 1;</script><ul><li>one</li><li>two</li></ul>"
        "<h2>Cut<br>over</h2>text after</body></html>"
    )
    assert html_to_text(html) == (
        "# Spec & plan\n\nHello world,\nsecond line <ok>\n\none\n\ntwo\n\n## Cut over\n\ntext after"
    )


def test_html_to_text_pre_becomes_fenced_block_keeping_whitespace() -> None:
    text = html_to_text("<p>Run:</p><pre>\n# comment\n  indented\n</pre>")
    assert text == "Run:\n\n```\n# comment\n  indented\n```"


def test_html_to_text_table_rows_become_lines_with_cells_separated() -> None:
    html = "<table><tr><th>name</th><th>role</th></tr><tr><td>Dana</td><td>lead</td></tr></table>"
    assert html_to_text(html) == "name | role\nDana | lead"


def test_html_to_text_same_input_gives_same_output() -> None:
    html = "<div><p>a</p><p>b &eacute;</p></div>"
    assert html_to_text(html) == html_to_text(html) == "a\n\nb é"


def test_parse_turns_reads_ids_times_speakers_and_offsets() -> None:
    turns = parse_turns(CONVERSATION)
    assert [turn.turn_id for turn in turns] == ["D1:1", "D1:2", "D1:3"]
    assert [turn.speaker for turn in turns] == ["Caroline", "Melanie", "Caroline"]
    assert turns[0].timestamp == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert turns[1].timestamp == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert turns[2].timestamp is None
    assert [turn.line_number for turn in turns] == [1, 3, 4]
    assert turns[1].text == "Sure, see you there."
    for turn in turns:
        assert CONVERSATION[turn.char_start : turn.char_end] == turn.text
        line = CONVERSATION[turn.line_start : turn.line_end]
        assert line.startswith(f"[{turn.turn_id} |")
        assert line.endswith(turn.text)


def test_parse_turns_naive_timestamp_is_read_as_utc() -> None:
    (turn,) = parse_turns("[t1 | 2024-01-15T09:00:00] Ravi: done")
    assert turn.timestamp == datetime(2024, 1, 15, 9, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "line_number"),
    [
        ("[t1 | ] Ravi: ok\nnot a turn", 2),
        ("[t1 | yesterday] Ravi: ok", 1),
        ("[t1 | ] Ravi: ok\n\n[ | ] Dana: hi", 3),
        ("[t1 | ] Ravi: ok\n[t1 | ] Dana: again", 2),
        ("[t1 | ] : nobody", 1),
    ],
)
def test_parse_turns_malformed_line_raises_naming_the_line(text: str, line_number: int) -> None:
    with pytest.raises(MalformedTurn, match=f"line {line_number}:") as caught:
        parse_turns(text)
    assert caught.value.line_number == line_number
