"""Re-extraction with a new extractor version: new claims become current testimony, the old
ones are handed to the adjudicator as `reextracted` and stop being current."""

from __future__ import annotations

from rememberstack.v1 import ingest_service_pb2

from services.ingest.extraction.rules import RulesExtractor

pb = ingest_service_pb2
NOTE = "Dana leads the billing team. Ravi did not approve the vendor contract."


async def test_new_extractor_version_replaces_the_old_claims_as_current_testimony(
    ingest_factory, namespace: str
) -> None:
    async with ingest_factory(None) as old:
        first = await old.ingest(namespace, NOTE)
        await old.settle(namespace, [first.version_id])
        old_ids = {
            r[0]
            for r in await old.rows("SELECT id FROM claims WHERE namespace = :ns", ns=namespace)
        }
    assert old_ids
    async with ingest_factory("2.0.0-test") as new:
        reply = await new.stub.ReextractDocuments(pb.ReextractDocumentsRequest(namespace=namespace))
        assert list(reply.version_ids) == [first.version_id]
        assert reply.extractor_version == "rules/2.0.0-test"
        states = await new.settle(namespace, [first.version_id])
        assert states[first.version_id].ready
        again = await new.stub.ReextractDocuments(pb.ReextractDocumentsRequest(namespace=namespace))
        assert list(again.version_ids) == []  # already extracted with this version
        rows = await new.rows(
            "SELECT id, extractor_version, is_current_testimony, currency_reason "
            "FROM claims WHERE namespace = :ns",
            ns=namespace,
        )
        payloads = await new.rows(
            "SELECT payload FROM work_items WHERE namespace = :ns AND kind = 'adjudicate.version'"
            " ORDER BY created_at",
            ns=namespace,
        )
    old_rows = [r for r in rows if r.id in old_ids]
    new_rows = [r for r in rows if r.id not in old_ids]
    assert all(r.extractor_version == RulesExtractor.version for r in old_rows)
    assert all(
        (r.is_current_testimony, r.currency_reason) == (False, "reextracted") for r in old_rows
    )
    assert new_rows and all(r.extractor_version == "2.0.0-test" for r in new_rows)
    assert all(r.is_current_testimony for r in new_rows)
    last = payloads[-1][0]
    assert last["retire_reason"] == "reextracted"
    assert set(last["retire_claim_ids"]) == {str(i) for i in old_ids}
