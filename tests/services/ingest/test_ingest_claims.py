"""The extract/embed pipeline end to end: claims with exact spans, conversations, chunk and
claim reuse across versions, living supersession, readiness streaming."""

from __future__ import annotations

from datetime import UTC, datetime

from google.protobuf.timestamp_pb2 import Timestamp
from rememberstack.v1 import document_pb2, ingest_service_pb2

from services.ingest.extraction.rules import RulesExtractor

pb = ingest_service_pb2
SAID_ON = datetime(2026, 1, 15, 9, 0, tzinfo=UTC)

PARAGRAPHS = [
    "# Billing migration",
    "Dana leads the billing team. She moved the cutover to March 2026.",
    "Ravi did not approve the vendor contract yesterday.",
    "## Risks",
    "According to Priya Shah, the ledger service depends on Postgres 16.",
]
CONVERSATION = "\n".join(
    [
        "[D1:1 | 2023-05-08T13:56:00Z] Caroline: I went to the LGBTQ support group yesterday.",
        "[D1:2 | 2023-05-08T13:57:00Z] Melanie: That sounds great! What happened there?",
        "[D1:3 | -] Caroline: My friend Gina moved to Boston last month.",
    ]
)


def said_on() -> Timestamp:
    ts = Timestamp()
    ts.FromDatetime(SAID_ON)
    return ts


CLAIM_COLUMNS = (
    "c.id, c.claim_text, c.source_span, c.char_start, c.char_end, c.chunk_char_start, "
    "c.chunk_char_end, c.asserted_at, c.speaker, c.turn_id, c.is_current_testimony, "
    "c.first_version_id, c.evidence_spans, c.extractor_name, c.extractor_version, "
    "c.embedding IS NOT NULL AS embedded, c.polarity, c.is_attributed, c.holder"
)


async def version_claims(ingest, namespace: str, version_id: str) -> list:  # type: ignore[no-untyped-def]
    return await ingest.rows(
        f"SELECT {CLAIM_COLUMNS}, ch.text AS chunk_text, vc2.char_start AS at "
        "FROM version_claims vc JOIN claims c ON c.id = vc.claim_id "
        "JOIN chunks ch ON ch.id = c.chunk_id "
        "JOIN version_chunks vc2 ON vc2.chunk_id = c.chunk_id AND vc2.version_id = vc.version_id "
        "WHERE vc.namespace = :ns AND vc.version_id = CAST(:v AS uuid) ORDER BY c.char_start",
        ns=namespace,
        v=version_id,
    )


async def stored_text(ingest, version_id: str) -> str:  # type: ignore[no-untyped-def]
    [(text,)] = await ingest.rows(
        "SELECT content_text FROM document_versions WHERE id = CAST(:v AS uuid)", v=version_id
    )
    return str(text)


async def test_claims_carry_spans_that_round_trip_to_the_stored_text(
    ingest, namespace: str
) -> None:
    result = await ingest.ingest(
        namespace,
        "\n\n".join(PARAGRAPHS),
        media_type="text/markdown",
        title="Migration",
        source_modified_time=said_on(),
    )
    await ingest.settle(namespace, [result.version_id])
    text = await stored_text(ingest, result.version_id)
    claims = await version_claims(ingest, namespace, result.version_id)
    assert len(claims) >= 3
    for c in claims:
        assert text[c.char_start : c.char_end] == c.source_span
        assert c.chunk_text[c.chunk_char_start : c.chunk_char_end] == c.source_span
        for span in c.evidence_spans:
            assert text[span["char_start"] : span["char_end"]] == span["text"]
        assert c.asserted_at == SAID_ON
        assert (c.extractor_name, c.extractor_version) == ("rules", RulesExtractor.version)
        assert c.embedded and c.is_current_testimony
    negated = [c for c in claims if "Ravi" in c.source_span]
    assert negated and negated[0].polarity == "negative"
    attributed = [c for c in claims if "ledger" in c.source_span]
    assert attributed and attributed[0].is_attributed
    events = await ingest.rows(
        "SELECT count(*) FROM testimony_events WHERE namespace = :ns AND event = 'asserted'",
        ns=namespace,
    )
    assert events == [(len(claims),)]


async def test_conversation_claims_carry_speaker_turn_and_turn_time(ingest, namespace: str) -> None:
    result = await ingest.ingest(
        namespace,
        CONVERSATION,
        media_type="text/x-rememberstack-conversation",
        source_modified_time=said_on(),
    )
    states = await ingest.settle(namespace, [result.version_id])
    assert states[result.version_id].ready
    text = await stored_text(ingest, result.version_id)
    claims = await version_claims(ingest, namespace, result.version_id)
    assert {c.turn_id for c in claims} >= {"D1:1", "D1:3"}
    for c in claims:
        assert text[c.char_start : c.char_end] == c.source_span
        line = next(line for line in text.split("\n") if line.startswith(f"[{c.turn_id} "))
        assert c.source_span in line and f"] {c.speaker}:" in line
    first = next(c for c in claims if c.turn_id == "D1:1")
    assert first.asserted_at == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    undated_turn = next(c for c in claims if c.turn_id == "D1:3")
    assert undated_turn.asserted_at == SAID_ON
    assert not any(c.turn_id == "D1:2" for c in claims)  # a question is not a claim


async def test_unchanged_passages_keep_their_chunks_claims_and_said_on_time(
    ingest, namespace: str
) -> None:
    pair = {"source_kind": "wiki", "source_ref": "reuse", "media_type": "text/markdown"}
    first = await ingest.ingest(
        namespace, "\n\n".join(PARAGRAPHS), source_modified_time=said_on(), **pair
    )
    await ingest.settle(namespace, [first.version_id])
    later = Timestamp()
    later.FromDatetime(datetime(2026, 3, 1, tzinfo=UTC))
    # The first section changes; the "Risks" section is byte-identical.
    edited = [*PARAGRAPHS[:2], "Omar joined the platform team in 2025.", *PARAGRAPHS[3:]]
    second = await ingest.ingest(namespace, "\n\n".join(edited), source_modified_time=later, **pair)
    await ingest.settle(namespace, [second.version_id])
    before = {c.id: c for c in await version_claims(ingest, namespace, first.version_id)}
    after = await version_claims(ingest, namespace, second.version_id)
    text = await stored_text(ingest, second.version_id)
    reused = [c for c in after if c.id in before]
    assert reused, "claims of unchanged passages must be shared"
    for c in reused:
        assert c.asserted_at == SAID_ON
        assert str(c.first_version_id) == first.version_id
        # The same claim maps onto the new version's text through its chunk.
        assert text[c.at + c.chunk_char_start : c.at + c.chunk_char_end] == c.source_span
    fresh = [c for c in after if c.id not in before]
    assert fresh and all(c.asserted_at == datetime(2026, 3, 1, tzinfo=UTC) for c in fresh)
    assert any("Omar" in c.source_span for c in fresh)


async def test_living_version_hands_missing_claims_to_the_adjudicator_as_superseded(
    ingest, namespace: str
) -> None:
    pair = {
        "source_kind": "wiki",
        "source_ref": "living",
        "versioning_mode": document_pb2.VERSIONING_MODE_LIVING,
    }
    first = await ingest.ingest(namespace, "\n\n".join(PARAGRAPHS[1:3]), **pair)
    await ingest.settle(namespace, [first.version_id])
    old = {c.id: c for c in await version_claims(ingest, namespace, first.version_id)}
    second = await ingest.ingest(namespace, PARAGRAPHS[1], **pair)
    await ingest.settle(namespace, [second.version_id])
    kept = {c.id for c in await version_claims(ingest, namespace, second.version_id)}
    dropped = {i for i, c in old.items() if i not in kept}
    assert dropped and kept
    [(payload,)] = await ingest.rows(
        "SELECT payload FROM work_items WHERE namespace = :ns AND kind = 'adjudicate.version' "
        "AND version_id = CAST(:v AS uuid)",
        ns=namespace,
        v=second.version_id,
    )
    assert payload["retire_reason"] == "version_superseded"
    assert {str(i) for i in dropped} == set(payload["retire_claim_ids"])
    currency = dict(
        await ingest.rows(
            "SELECT id, currency_reason FROM claims WHERE namespace = :ns", ns=namespace
        )
    )
    assert all(currency[i] == "version_superseded" for i in dropped)
    assert all(currency[i] is None for i in kept)


async def test_watch_readiness_sends_everything_first_and_ends_settled(
    ingest, namespace: str
) -> None:
    a = await ingest.ingest(namespace, PARAGRAPHS[1])
    b = await ingest.ingest(namespace, PARAGRAPHS[2])
    stream = ingest.stub.WatchReadiness(
        pb.WatchReadinessRequest(namespace=namespace, version_ids=[a.version_id, b.version_id])
    )
    updates = [u async for u in stream]
    assert {v.version_id for v in updates[0].versions} == {a.version_id, b.version_id}
    assert updates[-1].all_settled and not any(u.all_settled for u in updates[:-1])
    final = await ingest.stub.GetReadiness(
        pb.GetReadinessRequest(namespace=namespace, version_ids=[a.version_id, b.version_id])
    )
    for version in final.versions:
        assert version.ready and not version.dead_lettered and version.claim_count >= 1
        assert [s.stage for s in version.stages] == [1, 2, 3, 4, 5]
        assert {s.status for s in version.stages} == {document_pb2.STAGE_STATUS_SUCCEEDED}


EMAIL = (
    "Subject: Moving on\n\nHi all,\n\nI joined the Platform team on 1 June and my manager is now"
    " Dana Kim.\n\nThanks,\nLena Vogt\nStaff Engineer, Orbit Systems"
)


async def test_an_email_s_first_person_is_its_signer_and_the_signature_places_them(
    ingest, namespace: str
) -> None:
    # "I" had no one to be about: an email's paragraphs have no speaker of their own.
    result = await ingest.ingest(
        namespace, EMAIL, media_type="text/plain", title="Moving on", source_modified_time=said_on()
    )
    await ingest.settle(namespace, [result.version_id])
    text = await stored_text(ingest, result.version_id)
    claims = await version_claims(ingest, namespace, result.version_id)
    joined = next(c for c in claims if "Platform team" in c.source_span)
    assert joined.claim_text.startswith("Lena Vogt joined the Platform team")
    signed = [c for c in claims if c.source_span == "Staff Engineer, Orbit Systems"]
    assert signed and text[signed[0].char_start : signed[0].char_end] == signed[0].source_span
    subjects = await ingest.rows(
        "SELECT subject_text, predicate_text, object_text FROM claims WHERE id = :c",
        c=signed[0].id,
    )
    assert subjects == [("Lena Vogt", "work for", "Orbit Systems")]


WIKI = "\n\n".join(
    [
        "# Payments Platform",
        "We own the card-processing gateway.",
        "## Search team",
        "Members: Jin Park, Lea Novak",
        "## People",
        "- Oluwaseun Akintola - backend engineer\n- Benedek Szalai (SRE)",
    ]
)


async def test_a_wiki_heading_names_what_the_lines_under_it_are_about(
    ingest, namespace: str
) -> None:
    # Headings are passages of their own (a blank line after each): the lines under them
    # lost them, and "Members: Jin Park, Lea Novak" placed Jin in the page's title.
    result = await ingest.ingest(
        namespace,
        WIKI,
        media_type="text/markdown",
        title="Payments Platform team page",
        source_modified_time=said_on(),
    )
    await ingest.settle(namespace, [result.version_id])
    rows = await ingest.rows(
        "SELECT subject_text, predicate_text, object_text FROM claims WHERE namespace = :ns",
        ns=namespace,
    )
    assert set(rows) >= {
        ("Payments Platform team", "own", "the card-processing gateway"),
        ("Jin Park", "member of", "Search team"),
        ("Oluwaseun Akintola", "member of", "Payments Platform team"),
        ("Benedek Szalai", "member of", "Payments Platform team"),
    }
