"""Announcements as others write them (issue 16): a welcome names who joins and, where the
role or the team says it, where; the writer's pleasure ("Happy to report …") frames the news
with or without its "we"; a welcome with neither is a greeting."""

from __future__ import annotations

import pytest

from services.ingest.extraction.rules import RulesExtractor
from tests.support.extracting import extract, stated_relations


@pytest.mark.parametrize(
    ("text", "joined"),
    [
        ("Please welcome Dana Ruiz as Fenwick's new CMO.", ("Dana Ruiz", "join", "Fenwick")),
        (
            "We're thrilled to welcome Dana Ruiz as CMO of Fenwick.",
            ("Dana Ruiz", "join", "Fenwick"),
        ),
        (
            "I am very pleased to welcome Omar Said to the Halden team.",
            ("Omar Said", "join", "the Halden team"),
        ),
        (
            "We are delighted to welcome Priya Anand as head of sales at Corvane.",
            ("Priya Anand", "join", "Corvane"),
        ),
        (
            "Please welcome Oluwaseun Adeyemi as Head of Procurement at Brindlecote Foods.",
            ("Oluwaseun Adeyemi", "join", "Brindlecote Foods"),
        ),
        (
            "We're so excited to welcome Marisol Quintero to the Nightjar team.",
            ("Marisol Quintero", "join", "the Nightjar team"),
        ),
        (
            "We're so excited to welcome Marisol Quintero to the Nightjar team - she'll be "
            "leading our mobile work.",
            ("Marisol Quintero", "join", "the Nightjar team"),
        ),
    ],
)
def test_a_welcome_into_a_role_or_team_is_joining_it(
    extractor: RulesExtractor, text: str, joined: tuple[str, str, str]
) -> None:
    assert joined in stated_relations(extract(extractor, text, "Announcement"))


@pytest.mark.parametrize(
    "text",
    [
        "Please welcome Dana Ruiz as our new CMO.",
        "We're excited to welcome Lena Fischer as our Head of Design!",
        "Welcome Marco Bell as our new engineering manager.",
    ],
)
def test_a_welcome_as_our_role_is_kept_about_the_one_welcomed(
    extractor: RulesExtractor, text: str
) -> None:
    (claim,) = extract(extractor, text, "Announcement")
    assert claim.subject_text in ("Dana Ruiz", "Lena Fischer", "Marco Bell")
    assert claim.predicate_text == "join"


@pytest.mark.parametrize(
    "text",
    [
        "Welcome to the team, Dana!",
        "We welcome Dana Ruiz.",
        "Please welcome Ana and Tom!",
    ],
)
def test_a_welcome_with_no_role_or_team_is_a_greeting(extractor: RulesExtractor, text: str) -> None:
    assert extract(extractor, text, "Announcement") == []


@pytest.mark.parametrize(
    ("text", "news"),
    [
        ("Happy to report that the migration finished on Tuesday.", "The migration finished"),
        ("Excited to share that Omar Said is joining Halden as CFO.", "Omar Said is joining"),
        ("So pleased to announce we closed the Series B.", "We closed the Series B"),
    ],
)
def test_the_writers_pleasure_without_a_subject_frames_the_news(
    extractor: RulesExtractor, text: str, news: str
) -> None:
    (claim,) = extract(extractor, text, "Update")
    assert claim.claim_text.startswith(news)


@pytest.mark.parametrize(
    ("text", "joined"),
    [
        (
            "Ravi Patel and Anjali Patel joined Fenwick in May.",
            {("Ravi Patel", "join", "Fenwick"), ("Anjali Patel", "join", "Fenwick")},
        ),
        (
            "Dana Kim and Omar Said lead the Search team.",
            {("Dana Kim", "lead", "the Search team"), ("Omar Said", "lead", "the Search team")},
        ),
        (
            "Ravi Patel and Dr. Anjali Patel joined the audit group.",
            {
                ("Ravi Patel", "join", "the audit group"),
                ("Anjali Patel", "join", "the audit group"),
            },
        ),
    ],
)
def test_each_of_two_coordinated_subjects_holds_the_relation(
    extractor: RulesExtractor, text: str, joined: set[tuple[str, str, str]]
) -> None:
    assert joined <= set(stated_relations(extract(extractor, text, "Announcement")))


@pytest.mark.parametrize(
    ("text", "stated", "not_stated"),
    [
        (
            "Quick org update: Marcus Bell leads the mobile app team and Ines Carvalho leads "
            "the web dashboard team.",
            {
                ("Marcus Bell", "lead", "the mobile app team"),
                ("Ines Carvalho", "lead", "the web dashboard team"),
            },
            ("Marcus Bell", "lead", "Ines Carvalho"),
        ),
        (
            "Sara Lind works at Fenwick and Omar Said works at Corvane.",
            {("Sara Lind", "work at", "Fenwick"), ("Omar Said", "work at", "Corvane")},
            ("Sara Lind", "work at", "Corvane"),
        ),
        (
            "Hana Ito runs the billing squad and Tomas Reyes owns the ledger service.",
            {("Tomas Reyes", "own", "the ledger service")},
            ("Hana Ito", "run", "Tomas Reyes"),
        ),
    ],
)
def test_a_second_clause_s_subject_is_not_the_first_clause_s_object(
    extractor: RulesExtractor,
    text: str,
    stated: set[tuple[str, str, str]],
    not_stated: tuple[str, str, str],
) -> None:
    relations = set(stated_relations(extract(extractor, text, "Org update")))
    assert stated <= relations
    assert not_stated not in relations
