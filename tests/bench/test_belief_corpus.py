"""The generated document sets of issue 17 and the belief-dump diff printer (pure, no database)."""

from __future__ import annotations

from collections import Counter

from bench.belief_corpus import CONVERSATION, generate_belief_corpus, operations
from bench.belief_dump import BeliefDump, FactRecord, diff_dumps
from bench.entity_stress_corpus import COMPANY, SHORT_NAME, company_documents
from services.ingest.extraction.base import ExtractionInput
from services.ingest.extraction.rules import load_rules_extractor
from services.ingest.formats import classify, html_to_text, parse_turns


def test_the_belief_corpus_is_deterministic_per_seed_and_differs_across_seeds() -> None:
    first, again = generate_belief_corpus(60, seed=17), generate_belief_corpus(60, seed=17)
    assert first == again
    other = generate_belief_corpus(60, seed=18)
    assert [d.body for d in other.documents] != [d.body for d in first.documents]
    assert len(first.documents) == 60
    assert len({d.source_ref for d in first.documents}) == 60
    said = [d.said_on for d in first.documents]
    assert said == sorted(said)


def test_the_belief_corpus_holds_every_phenomenon_the_property_is_about() -> None:
    corpus = generate_belief_corpus()
    roles = Counter(role for d in corpus.documents for _, _, role in d.statements)
    assert roles["change"] >= 10 and roles["conflict"] >= 4 and roles["compatible"] == 1
    assert roles["confirm"] >= 60
    changed = {
        topic.split(":")[0]
        for d in corpus.documents
        for topic, _, r in d.statements
        if r == "change"
    }
    # Job, team, manager, owner changes and successive values of attributes.
    assert changed >= {
        "employer",
        "team",
        "manager",
        "owner",
        "price",
        "headcount",
        "status",
        "stance",
        "city",
    }
    company_names = {
        "Northwind Logistics",
        "Contoso Analytics",
        "Fabrikam Industries",
        "Tailspin Toys",
    }
    people = [f for name, f in corpus.alias_groups.items() if name not in company_names]
    assert len(people) >= 6
    assert all(len(forms) >= 3 for forms in people), corpus.alias_groups
    companies = [corpus.alias_groups[c] for c in ("Northwind Logistics", "Contoso Analytics")]
    assert all(len(forms) == 2 for forms in companies)
    registers = Counter(d.media_type for d in corpus.documents)
    assert set(registers) == {"text/markdown", "text/plain", "text/html", CONVERSATION}
    assert len(corpus.deleted) >= 4 and corpus.long_document not in corpus.deleted


def test_every_generated_document_parses_in_its_format_and_the_long_one_spans_batches() -> None:
    corpus = generate_belief_corpus()
    for document in corpus.documents:
        kind = classify(document.media_type, document.body)
        if document.media_type == CONVERSATION:
            assert kind == "conversation" and len(parse_turns(document.body)) >= 2
        else:
            assert kind == "prose"
    extractor = load_rules_extractor()
    long = corpus.documents[corpus.long_document]
    paragraphs = [p for p in long.body.split("\n\n") if p and not p.startswith("#")]
    claims = [
        c
        for batch in extractor.extract_batch(
            [ExtractionInput(text=p, said_on=long.said_on) for p in paragraphs]
        )
        for c in batch
    ]
    # The adjudicator commits 16 claims per transaction: a crash can land between two.
    assert len(claims) > 16
    dated = [c for c in claims if c.claim_valid_from is not None]
    assert len(dated) >= len(claims) // 2
    wiki = next(d for d in corpus.documents if d.media_type == "text/html")
    assert "<p>" in wiki.body and "<p>" not in html_to_text(wiki.body)


def test_every_arrival_order_ingests_each_document_once_and_deletes_only_after_its_ingest() -> None:
    corpus = generate_belief_corpus()
    reference = operations(corpus, None)
    assert [op.index for op in reference if op.kind == "ingest"] == list(range(60))
    orders = set()
    for seed in range(1, 13):
        steps = operations(corpus, seed)
        ingests = [op.index for op in steps if op.kind == "ingest"]
        assert sorted(ingests) == list(range(60))
        deletes = [op.index for op in steps if op.kind == "delete"]
        assert sorted(deletes) == list(corpus.deleted)
        for index in deletes:
            ingested = steps.index(
                next(
                    op
                    for op in steps
                    if op == ("ingest", index) or (op.kind == "ingest" and op.index == index)
                )
            )
            deleted = next(
                p for p, op in enumerate(steps) if op.kind == "delete" and op.index == index
            )
            assert ingested < deleted
        orders.add(tuple(ingests))
        assert steps == operations(corpus, seed)
    assert len(orders) == 12


def test_the_stress_set_names_one_company_in_every_document_in_both_forms() -> None:
    documents = company_documents(200)
    assert documents == company_documents(200) and len(documents) == 200
    assert all(COMPANY in d.body or SHORT_NAME in d.body for d in documents)
    short_only = [d for d in documents if COMPANY not in d.body]
    assert 10 <= len(short_only) <= 120
    assert len({d.body for d in documents}) == 200
    formats = Counter(d.media_type for d in documents)
    assert formats["text/plain"] > 100 and formats[CONVERSATION] >= 30


def _record(label: str, **changes: object) -> FactRecord:
    values: dict[str, object] = {
        "label": label,
        "kind": "relation",
        "valid_from": "2025-01-01T00:00:00+00:00",
        "valid_until": None,
        "valid_precision": "open",
        "valid_kind": "effective_period",
        "polarity": "positive",
        "support": "current",
        "evidence_count": 1,
        "contradicting_documents": 0,
        "contradiction_group": (),
        "group_live": False,
        "superseded_by": None,
        "invalidated": False,
        "invalidation_reason": None,
    }
    values.update(changes)
    return FactRecord(**values)  # type: ignore[arg-type]


def test_the_diff_printer_names_split_entities_and_changed_fact_fields() -> None:
    a = BeliefDump(
        Counter({frozenset({"melanie ortiz", "mel"}): 1, frozenset({"contoso"}): 1}),
        Counter(
            {_record("Mel works for Contoso"): 1, _record("Mel is a member of search team"): 1}
        ),
    )
    b = BeliefDump(
        Counter(
            {frozenset({"melanie ortiz"}): 1, frozenset({"mel"}): 1, frozenset({"contoso"}): 1}
        ),
        Counter(
            {
                _record(
                    "Mel works for Contoso",
                    valid_until="2025-06-01T00:00:00+00:00",
                    superseded_by="Mel works for Fabrikam",
                ): 1,
                _record("Mel is a member of search team"): 2,
            }
        ),
    )
    assert diff_dumps(a, a) == [] and a == BeliefDump(Counter(a.entities), Counter(a.facts))
    lines = diff_dumps(a, b, ("ref", "perm"))
    assert "entity only in ref (x1): ['mel', 'melanie ortiz']" in lines
    assert "entity only in perm (x1): ['mel']" in lines
    assert any(
        "valid_until: None -> '2025-06-01T00:00:00+00:00'" in line
        and "superseded_by: None -> 'Mel works for Fabrikam'" in line
        for line in lines
    )
    assert "fact 'Mel is a member of search team': 0 only in ref, 1 only in perm" in lines
    assert a.summary()["entities"] == 2 and b.summary()["facts"] == 3
    assert len(diff_dumps(a, b, limit=2)) == 3
