"""Positions, titles of address, unfamiliar names at a sentence start, the employer a hire
leaves, and counts that move (issue 16, classes 1 and 3; issue 17, class 2): each class in
phrasings written apart from the probe sentences it was found on."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.ingest.extraction.base import ExtractedClaim, ExtractionInput
from services.ingest.extraction.rules import RulesExtractor

SAID = datetime(2025, 9, 1, 9, 0, tzinfo=UTC)


def _claims(extractor: RulesExtractor, text: str, title: str | None = None) -> list[ExtractedClaim]:
    return extractor.extract_batch(
        [ExtractionInput(text=text, said_on=SAID, document_title=title)]
    )[0]


def _relations(claims: list[ExtractedClaim]) -> set[tuple[str | None, str | None, str | None]]:
    found = set()
    for claim in claims:
        found.add((claim.subject_text, claim.predicate_text, claim.object_text))
        found.update(
            (r.subject_text, r.predicate_text, r.object_text) for r in claim.extra_relations
        )
    return found


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Ama Owusu is a midwife at Korle Bu Teaching Hospital.",
         ("Ama Owusu", "work for", "Korle Bu Teaching Hospital")),
        ("Pedro Alves is the head sommelier at Casa Nova Wines.",
         ("Pedro Alves", "work for", "Casa Nova Wines")),
        ("Yuki Tanaka, an actuary with Meridian Re, said the model needs another review.",
         ("Yuki Tanaka", "work for", "Meridian Re")),
        ("Chen Jie is a paralegal at Harlow Finch LLP.",
         ("Chen Jie", "work for", "Harlow Finch LLP")),
    ],
)  # fmt: skip
def test_any_position_held_at_a_named_organisation_is_employment(
    extractor: RulesExtractor, text: str, expected: tuple[str, str, str]
) -> None:
    # The title is in no list; "<noun> at/with <Org>" says it is a job.
    assert expected in _relations(_claims(extractor, text))


@pytest.mark.parametrize(
    "text",
    [
        "Ida Berg is a longtime customer at Globex Bank.",
        "Tom Hale was a speaker at Vantage Summit.",
        "The offsite is a workshop at Pellucid Labs.",
    ],
)
def test_standing_at_an_organisation_without_working_there_is_no_employment(
    extractor: RulesExtractor, text: str
) -> None:
    assert not any(p == "work for" for _, p, _ in _relations(_claims(extractor, text)))


@pytest.mark.parametrize(
    ("text", "subjects"),
    [
        ("Dr. Amara Obi leads the trial. Amara Obi said recruitment is on track.",
         {"Amara Obi"}),
        ("Prof. Ian Hale chairs the ethics board.", {"Ian Hale"}),
        ("Ms. Rosa Diaz joined Vexa Labs in May. Diaz now runs the data team.", {"Rosa Diaz"}),
    ],
)  # fmt: skip
def test_a_title_of_address_is_no_part_of_the_name(
    extractor: RulesExtractor, text: str, subjects: set[str]
) -> None:
    found = {c.subject_text for c in _claims(extractor, text)} | {
        c.holder for c in _claims(extractor, text) if c.holder
    }
    assert subjects <= found
    assert not any(s and s.split()[0].rstrip(".") in ("Dr", "Prof", "Ms") for s in found)


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("Quorvex hired two senior engineers last month.", "Quorvex"),
        ("Tandemly signed the renewal on Monday.", "Tandemly"),
        ("Brightlane acquired Pico Labs in April.", "Brightlane"),
    ],
)
def test_an_unfamiliar_name_opening_a_sentence_is_the_subject_not_the_topic(
    extractor: RulesExtractor, text: str, subject: str
) -> None:
    # The small tagger reads these as common nouns; no English word list has them.
    (claim, *_) = _claims(extractor, text, title="Weekly update")
    assert claim.subject_text == subject


def test_a_common_word_opening_a_sentence_still_reads_as_the_topic(
    extractor: RulesExtractor,
) -> None:
    (claim,) = _claims(extractor, "Revenue fell 5% in August.", title="Harbor Foods update")
    assert claim.subject_text == "Harbor Foods"


@pytest.mark.parametrize(
    ("text", "left"),
    [
        ("Globex recruited Ana Silva from Initech in March.", ("Ana Silva", "leave", "Initech")),
        ("Zentra poached Omar Haddad from Lumio Health.", ("Omar Haddad", "leave", "Lumio Health")),
        ("Last week Fernhill Capital hired Jo Park from Danske Markets.",
         ("Jo Park", "leave", "Danske Markets")),
    ],
)  # fmt: skip
def test_the_one_hired_leaves_the_employer_they_were_hired_from(
    extractor: RulesExtractor, text: str, left: tuple[str, str, str]
) -> None:
    relations = _relations(_claims(extractor, text))
    assert left in relations
    assert not any(p == "leave" and s != left[0] for s, p, _ in relations)


@pytest.mark.parametrize(
    ("text", "start"),
    [
        ("Kelvo grew to 85 employees in April 2025.", datetime(2025, 4, 1, tzinfo=UTC)),
        ("The support team shrank to 6 people in May 2025.", datetime(2025, 5, 1, tzinfo=UTC)),
        ("Daily active users rose to 12,000 in March 2025.", datetime(2025, 3, 1, tzinfo=UTC)),
    ],
)
def test_a_count_that_moves_holds_from_then_on(
    extractor: RulesExtractor, text: str, start: datetime
) -> None:
    (claim,) = _claims(extractor, text)
    assert (claim.claim_valid_from, claim.claim_valid_until) == (start, None)
    assert claim.claim_valid_precision == "open"


def test_a_flow_that_rose_is_what_its_period_measured(extractor: RulesExtractor) -> None:
    (claim,) = _claims(extractor, "Revenue rose to $2M in Q2 2025.")
    assert claim.claim_valid_precision == "quarter"
    assert claim.claim_valid_until is not None


@pytest.mark.parametrize(
    ("text", "held"),
    [
        ("In addition to her job at Sable Systems, Noor Hamid now sits on the board of Lark "
         "Foundation.", ("Noor Hamid", "work for", "Sable Systems")),
        ("Besides running Orrin Labs, Kai Sato advises Pellwick Capital.",
         ("Kai Sato", "run", "Orrin Labs")),
        ("Rahul Mehta joined the board of Lumina Health, alongside his role as CEO of Vantage "
         "Robotics.", ("Rahul Mehta", "work for", "Vantage Robotics")),
        ("On top of his work at Koto Foods, Ben Ike teaches at Lagos Tech.",
         ("Ben Ike", "work for", "Koto Foods")),
    ],
)  # fmt: skip
def test_a_placement_held_beside_the_clause_s_is_a_relation_too(
    extractor: RulesExtractor, text: str, held: tuple[str, str, str]
) -> None:
    # The claim's own cue ("in addition to", "besides") keeps both placements standing.
    assert held in _relations(_claims(extractor, text))


def test_a_greeting_is_no_one_a_pronoun_can_mean(extractor: RulesExtractor) -> None:
    # "Hi" is a given name somewhere; opening an email it is a greeting, never "her".
    (claim, *_) = extractor.extract_batch(
        [
            ExtractionInput(
                text="In addition to her job at Sable Systems, Noor Hamid sits on two boards.",
                said_on=SAID,
                context="Subject: Board news\n\nHi all,",
            )
        ]
    )[0]
    assert "Hi's" not in claim.claim_text and "Hi " not in claim.claim_text


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("Project Nova status: green.", "Project Nova"),
        ("Checkout API health - degraded.", "Checkout API"),
        ("Atlas migration status: on hold.", "Atlas migration"),
    ],
)
def test_a_verbless_key_value_line_is_a_claim_about_the_key_s_thing(
    extractor: RulesExtractor, text: str, subject: str
) -> None:
    (claim,) = _claims(extractor, text, title="Weekly status")
    assert claim.subject_text == subject
    assert (claim.predicate_text or "").split()[0] == "be"  # "be", or "be on" for "on hold"


@pytest.mark.parametrize(
    ("text", "joined", "left"),
    [
        ("Priya Das replaced Leo Marsh as head of the Data team in May.",
         ("Priya Das", "join", "the Data team"), ("Leo Marsh", "leave", "the Data team")),
        ("Wen Li succeeded Ola Berg as CTO of Fjord Analytics on 1 March.",
         ("Wen Li", "join", "Fjord Analytics"), ("Ola Berg", "leave", "Fjord Analytics")),
        ("Sam Ito took over from Rui Alves as lead of the Mobile team.",
         ("Sam Ito", "join", "the Mobile team"), ("Rui Alves", "leave", "the Mobile team")),
    ],
)  # fmt: skip
def test_a_role_handed_on_starts_the_successor_and_ends_the_predecessor(
    extractor: RulesExtractor,
    text: str,
    joined: tuple[str, str, str],
    left: tuple[str, str, str],
) -> None:
    relations = _relations(_claims(extractor, text))
    assert {joined, left} <= relations


def test_replacing_someone_in_no_named_place_hands_nothing_on(extractor: RulesExtractor) -> None:
    assert not any(
        p == "leave"
        for _, p, _ in _relations(_claims(extractor, "Ben replaced Tom as the main contact."))
    )


@pytest.mark.parametrize(
    ("text", "obj"),
    [
        ("Ana Ruiz owns the onboarding checklist.", "the onboarding checklist"),
        ("Mo Farah maintains the pricing calculator.", "the pricing calculator"),
        ("Kim Lee runs the hiring pipeline.", "the hiring pipeline"),
    ],
)
def test_an_ing_noun_modifier_names_the_thing(
    extractor: RulesExtractor, text: str, obj: str
) -> None:
    # The tagger calls "onboarding" an adjective; no English word list does.
    (claim,) = _claims(extractor, text)
    assert claim.object_text == obj


def test_an_ing_adjective_still_only_describes(extractor: RulesExtractor) -> None:
    (claim,) = _claims(extractor, "Kim Lee reviewed the existing checklist.")
    assert claim.object_text is None


@pytest.mark.parametrize(
    ("text", "objects"),
    [
        ("Dee Ray works at Fable Games and at Quarry AI.", {"Fable Games", "Quarry AI"}),
        ("I'm part-time at Studio Nine and also part-time at Fernwood Press.",
         {"Studio Nine", "Fernwood Press"}),
        ("Raj Patel is based in Oslo and in Bergen.", {"Oslo", "Bergen"}),
    ],
)  # fmt: skip
def test_a_second_coordinated_preposition_states_the_same_relation(
    extractor: RulesExtractor, text: str, objects: set[str]
) -> None:
    assert objects <= {o for _, _, o in _relations(_claims(extractor, text))}


def test_places_one_after_the_other_are_not_one_relation_twice(extractor: RulesExtractor) -> None:
    relations = _relations(_claims(extractor, "Ana Lopes moved to Lisbon and then to Porto."))
    assert not any(o == "Porto" and p == "relocate to" for _, p, o in relations)


@pytest.mark.parametrize(
    "text",
    [
        "From 1 June 2025 the free tier includes 10 GB of storage.",
        "The Team plan allows 200 MB uploads.",
        "Each seat includes 40 GB of backups.",
    ],
)
def test_a_counted_quantity_is_no_entity(extractor: RulesExtractor, text: str) -> None:
    # "GB" and "MB" are tagged proper nouns (even organisations); a number before says units.
    assert all(o is None or not o[:1].isdigit() for _, _, o in _relations(_claims(extractor, text)))
    assert not any(o in ("GB", "MB") for _, _, o in _relations(_claims(extractor, text)))


def test_a_name_with_its_number_after_stays_a_name(extractor: RulesExtractor) -> None:
    (claim,) = _claims(extractor, "Priya Shah joined the 3 Sigma team.")
    assert claim.object_text == "the 3 Sigma team"


@pytest.mark.parametrize(
    ("text", "owned"),
    [
        ("Dana Whitfield, the owner of the Ledger API, approved the change.",
         ("Dana Whitfield", "own", "Ledger API")),
        ("Kofi Mensah is the owner of the Atlas dashboard.",
         ("Kofi Mensah", "own", "the Atlas dashboard")),
    ],
)  # fmt: skip
def test_an_owner_owns_rather_than_works_for_what_they_own(
    extractor: RulesExtractor, text: str, owned: tuple[str, str, str]
) -> None:
    assert owned in _relations(_claims(extractor, text))
