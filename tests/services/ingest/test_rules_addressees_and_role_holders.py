"""Whom a turn speaks to, who holds a role named before them, and where a named site is (issue
16, classes 1 and 5), in phrasings written apart from the labelled sets:

- a name in the vocative is whom "you" and "your" mean, and the claim names them instead;
  without one, "you" stays, and a name the clause is about is no vocative;
- "The CTO of Northwind, Dana Whitfield, said …": the person is the subject, the role a
  relation to the organisation, however the parser hung the name;
- "the Accra hub", "the Gdansk depot": a site of its own, not the place or company it is named
  after.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.adjudicator.normalization import PredicateVocabulary
from services.ingest.extraction.base import ExtractedClaim, ExtractionInput
from services.ingest.extraction.rules import RulesExtractor

SAID = datetime(2026, 5, 20, 9, 0, tzinfo=UTC)
VOCABULARY = PredicateVocabulary()


def _claims(
    extractor: RulesExtractor, text: str, speaker: str | None = None, context: str | None = None
) -> list[ExtractedClaim]:
    inp = ExtractionInput(text=text, said_on=SAID, speaker=speaker, context=context)
    return extractor.extract_batch([inp])[0]


@pytest.mark.parametrize(
    ("context", "speaker", "text", "subject", "claim_text"),
    [
        (
            "[t1] Ravi Kumar: morning all",
            "Joan Pike",
            "Ravi, you're taking over the on-call rota from Monday.",
            "Ravi Kumar",
            "Ravi Kumar",
        ),
        (
            "[t1] Lena Berg: the runbook is finally merged",
            "Tom Hale",
            "congrats Lena! you are now the owner of the billing runbook",
            "Lena Berg",
            "Lena Berg is now the owner",
        ),
        (
            "[t1] Bea Novak: shipped the importer patch",
            "Carl Dunn",
            "nice work, Bea. your patch is already in production",
            None,
            "Bea Novak's patch is already in production",
        ),
    ],
)
def test_a_vocative_names_whom_you_means(
    extractor: RulesExtractor,
    context: str,
    speaker: str,
    text: str,
    subject: str | None,
    claim_text: str,
) -> None:
    claims = _claims(extractor, text, speaker=speaker, context=context)
    texts = [c.claim_text for c in claims]
    assert any(claim_text in t for t in texts), texts
    assert not any(t.lower().startswith(("you", "ravi,", "congrats")) for t in texts), texts
    if subject is not None:
        assert subject in {c.subject_text for c in claims}


@pytest.mark.parametrize(
    ("speaker", "text", "kept"),
    [
        ("Omar Ali", "you never know with vendors, the rate went up again", "you"),
        # a name the clause is about, with its apposition, is its subject, not an address
        ("Nia Obi", "Guadalupe Torres, our IT director, signs off on every vendor change.",
         "Guadalupe Torres"),
        # an action item's owner before a colon is no address either
        ("Nia Obi", "Dana Reyes: you own the venue booking now", "you"),
    ],
)  # fmt: skip
def test_without_a_vocative_you_stays(
    extractor: RulesExtractor, speaker: str, text: str, kept: str
) -> None:
    claims = _claims(extractor, text, speaker=speaker)
    assert any(kept.lower() in c.claim_text.lower() for c in claims), [c.claim_text for c in claims]


def _relations(claims: list[ExtractedClaim]) -> set[tuple[str | None, str, str]]:
    triples = [(c.subject_text, c.predicate_text, c.object_text) for c in claims]
    triples += [
        (r.subject_text, r.predicate_text, r.object_text) for c in claims for r in c.extra_relations
    ]
    found = set()
    for subject, predicate_text, obj in triples:
        stored = VOCABULARY.relation(subject or "", predicate_text or "", obj or "")
        if stored is not None and stored[1] is not None and obj is not None:
            found.add((subject, stored[1].predicate, obj))
    return found


@pytest.mark.parametrize(
    ("text", "person", "employer"),
    [
        ("The CTO of Northwind, Dana Whitfield, said the launch slipped.", "Dana Whitfield",
         "Northwind"),
        ("The head of payments at Corvid, Ilse Brandt, approved the refund policy.",
         "Ilse Brandt", "Corvid"),
        # no other verb: the parser reads "left" as a participle of "head"
        ("Our head of design at Lumen, Ana Ruiz, left in May.", "Ana Ruiz", "Lumen"),
        ("The chief operating officer of Halden Foods, Rita Soto, opened the new depot.",
         "Rita Soto", "Halden Foods"),
    ],
)  # fmt: skip
def test_a_role_named_before_its_holder_makes_the_holder_the_subject(
    extractor: RulesExtractor, text: str, person: str, employer: str
) -> None:
    claims = _claims(extractor, text)
    # the subject of what the clause says, or the holder of what they said
    assert person in {c.subject_text for c in claims} | {c.holder for c in claims}
    assert (person, "works_for", employer) in _relations(claims)


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("The Accra hub has been open on weekends since February.", "The Accra hub"),
        ("The Gdansk depot ships twice a day.", "The Gdansk depot"),
        ("The Lyon lab is closed for renovation.", "The Lyon lab"),
    ],
)
def test_a_site_named_after_a_place_is_the_site(
    extractor: RulesExtractor, text: str, subject: str
) -> None:
    claims = _claims(extractor, text)
    assert [c.subject_text for c in claims][:1] == [subject]


@pytest.mark.parametrize(
    ("speaker", "text", "holder"),
    [
        ("Omar Ali", "In my view the vendor is overcharging us.", "Omar Ali"),
        ("Omar Ali", "IMO the new dashboard is much clearer.", "Omar Ali"),
        ("Omar Ali", "To me, the redesign looks rushed.", "Omar Ali"),
        ("Omar Ali", "the freight quote is far too high, if you ask me", "Omar Ali"),
        (None, "In Dana Kim's opinion the launch is premature.", "Dana Kim"),
        (None, "In our view the Q3 date cannot hold.", "the author"),
    ],
)
def test_a_viewpoint_phrase_attributes_the_statement_to_its_holder(
    extractor: RulesExtractor, speaker: str | None, text: str, holder: str
) -> None:
    claims = _claims(extractor, text, speaker=speaker)
    assert claims, text  # an opinion with a holder is kept, not dropped as holderless
    assert claims[0].is_attributed and claims[0].holder == holder


@pytest.mark.parametrize(
    "text",
    ["He gave the keys to me yesterday.", "The deal closes in May if the board agrees."],
)
def test_to_me_and_if_in_their_ordinary_sense_attribute_nothing(
    extractor: RulesExtractor, text: str
) -> None:
    assert not any(c.is_attributed for c in _claims(extractor, text, speaker="Omar Ali"))


def test_a_possessive_is_no_part_of_the_name_a_pronoun_means(extractor: RulesExtractor) -> None:
    context = "In Dana Kim's opinion the launch is premature."
    claims = _claims(extractor, "She gave the keys to Omar yesterday.", context=context)
    assert claims and claims[0].claim_text.startswith("Dana Kim gave")


@pytest.mark.parametrize(
    ("context", "text", "person", "employer"),
    [
        ("Quick update on Brightline.",
         "Their new head of procurement, Felix Amato, starts on 2 June.", "Felix Amato",
         "Brightline"),
        ("We met the Torvik Group team yesterday.", "Its CFO, Rita Soto, signed the renewal.",
         "Rita Soto", "Torvik Group"),
        ("Call notes: Halden Foods.", "Their head of sales, Ana Lima, asked for a discount.",
         "Ana Lima", "Halden Foods"),
    ],
)  # fmt: skip
def test_a_role_of_the_organisation_a_pronoun_means_is_held_there(
    extractor: RulesExtractor, context: str, text: str, person: str, employer: str
) -> None:
    claims = _claims(extractor, text, context=context)
    assert (person, "works_for", employer) in _relations(claims)


def test_a_role_of_an_unresolved_their_states_no_employer(extractor: RulesExtractor) -> None:
    claims = _claims(extractor, "Their CTO, Dana Whitfield, presented the plan.")
    assert not any(r[1] == "works_for" for r in _relations(claims))


def _titled(extractor: RulesExtractor, text: str, title: str) -> list[ExtractedClaim]:
    inp = ExtractionInput(text=text, said_on=SAID, document_title=title)
    return extractor.extract_batch([inp])[0]


@pytest.mark.parametrize(
    ("title", "text", "person", "predicate", "held_in"),
    [
        ("Weekly status — Atlas migration", "Project lead - Omar Haddad.", "Omar Haddad",
         "works_on", "Atlas"),
        ("Q3 planning", "Owner of the vendor consolidation: Lucia Moreno", "Lucia Moreno",
         "other:owned_by", "the vendor consolidation"),
        ("Release notes", "Tech lead for the Ledger API: Priya Das.", "Priya Das", "works_on",
         "the Ledger API"),
    ],
)  # fmt: skip
def test_a_role_line_names_who_holds_the_role_in_what(
    extractor: RulesExtractor, title: str, text: str, person: str, predicate: str, held_in: str
) -> None:
    claims = _titled(extractor, text, title)
    assert claims and claims[0].subject_text == person
    stored = VOCABULARY.relation(person, claims[0].predicate_text or "", held_in)
    assert claims[0].object_text == held_in
    assert stored is not None and stored[1].predicate == predicate


@pytest.mark.parametrize(
    "text", ["Budget: $240k", "Status: amber", "Office manager: Katarzyna Nowak"]
)
def test_a_key_value_line_without_a_held_role_is_no_role_line(
    extractor: RulesExtractor, text: str
) -> None:
    claims = _titled(extractor, text, "Weekly status — Atlas migration")
    assert all(c.predicate_text not in ("own", "lead") for c in claims)


@pytest.mark.parametrize(
    ("context", "text", "employer"),
    [
        ("Halcyon Bio has been a customer since 2023. They use our Lab Scheduler module.",
         "Their CTO, Miriam Adeyemi, sponsors the rollout.", "Halcyon Bio"),
        ("Torvik Group renewed in May. It runs Looker for reporting.",
         "Its CFO, Rita Soto, signed the renewal.", "Torvik Group"),
        ("Grayhaven Insurance joined the pilot. They picked Snowflake for storage.",
         "Their head of data, Omar Ali, owns the pilot.", "Grayhaven Insurance"),
    ],
)  # fmt: skip
def test_a_pronoun_subject_in_between_keeps_the_organisation_it_continued(
    extractor: RulesExtractor, context: str, text: str, employer: str
) -> None:
    claims = _claims(extractor, text, context=context)
    person = claims[0].subject_text
    assert (person, "works_for", employer) in _relations(claims)


@pytest.mark.parametrize(
    ("context", "text", "claim_text"),
    [
        ("Subject: Launch\n\nHi Noor,\n\n", "you will own the Helios launch from June.",
         "Noor will own the Helios launch from June"),
        ("Dear Omar,\n\n", "Your first day at Lumen Bio is 2 June.",
         "Omar's first day at Lumen Bio is 2 June"),
        ("Hello Dana Kim!\n\nWelcome aboard.\n\n", "You'll be on the Payments team.",
         "Dana Kim will be on the Payments team"),
    ],
)  # fmt: skip
def test_a_letter_s_salutation_names_whom_you_means_in_the_passages_after_it(
    extractor: RulesExtractor, context: str, text: str, claim_text: str
) -> None:
    (claim, *_) = _claims(extractor, text, context=context)
    assert claim.claim_text == claim_text


@pytest.mark.parametrize(
    "context", ["Hi all,\n\n", "Hi team,\n\n", "Hi Noor,\n\nThanks. Best,\nKim\n\nHi everyone,\n\n"]
)
def test_a_salutation_to_no_one_person_names_no_addressee(
    extractor: RulesExtractor, context: str
) -> None:
    (claim, *_) = _claims(extractor, "you will own the Helios launch from June.", context=context)
    assert claim.claim_text.startswith("You will own")


@pytest.mark.parametrize(
    ("text", "managed", "manager"),
    [
        ("Noor Haddad's manager is Dana Kim.", "Noor Haddad", "Dana Kim"),
        ("Dana Kim is Noor Haddad's manager.", "Noor Haddad", "Dana Kim"),
        ("Noor Haddad's new boss is Omar Said.", "Noor Haddad", "Omar Said"),
    ],
)
def test_someone_s_manager_is_whom_they_report_to(
    extractor: RulesExtractor, text: str, managed: str, manager: str
) -> None:
    (claim, *_) = _claims(extractor, text)
    stored = VOCABULARY.relation(
        claim.subject_text or "", claim.predicate_text or "", claim.object_text or ""
    )
    assert stored is not None
    assert (stored[0], stored[1].predicate, stored[2]) == (managed, "reports_to", manager)
