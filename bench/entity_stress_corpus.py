"""One company named in many documents, among ever different people, places and topics.

Issue 17's entity-cascade stress set: "one company named in 200 documents → 1 entity". Each
document is a short business text (support ticket, sales call note, invoice reminder, news
brief, partner email, hiring note, chat) naming the company by its full name or, in about a
third of the mentions, by its short name, in subject, object or possessive position, next to
people and places that rarely repeat, so the company's neighbourhood in one document shares
little with its neighbourhood in the next: exactly the context a resolver must not read as
"another company of the same name". Seeded: the same arguments give the same documents.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from bench.synthetic_corpus import CONVERSATION, SyntheticDocument

__all__ = ["COMPANY", "SHORT_NAME", "company_documents"]

COMPANY = "Northwind Logistics"
SHORT_NAME = "Northwind"


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


_GIVEN = _words(
    "Amara Bruno Chloe Diego Emeka Farah Goran Hana Ines Jonas Keiko Leila Marco Nadia Omar "
    "Pavel Rosa Samir Tara Uma Viktor Wei Yara Zoe Anders Lucia Felix Ingrid Hugo Priya"
)
_SURNAMES = _words(
    "Abara Becker Castillo Dimitrov Eze Fontaine Gallo Horvat Iqbal Jovanovic Kowalczyk Laine "
    "Mendes Nakashima Okoro Pereira Quispe Rahman Sato Tremblay Ueda Valdez Wojcik Xu Yamada "
    "Zeller Almeida Brandt Coelho Duarte"
)
_CITIES = _words(
    "Lisbon Porto Rotterdam Hamburg Gdansk Antwerp Valencia Genoa Marseille Bremen Tallinn Riga "
    "Aarhus Gothenburg Bilbao Naples Trieste Split Constanta Szczecin"
)
_PRODUCTS = (
    "cold-chain tracking",
    "route planning",
    "customs clearance",
    "last-mile delivery",
    "warehouse robotics",
    "fleet telematics",
    "freight insurance",
    "returns handling",
)
_SENTENCES = (
    "{p} works for {c}.",
    "{p} from {c} called about a delayed shipment to {x}.",
    "{c} signed a renewal for {n} seats of our {product} module.",
    "{c} is headquartered in Rotterdam.",
    "Our main contact at {c} is {p}.",
    "{c} opened a support ticket about invoice {num}.",
    "{c} uses our {product} service in {x}.",
    "{p} met the {c} team at the {x} trade fair.",
    "{owner} procurement team asked {p} for a discount.",
    "The {c} account grew by {n} percent this quarter.",
    "{c} hired {n} drivers in {x} last month.",
    "{p} is the account manager for {c}.",
    "{p} negotiated the {product} contract with {c}.",
    "{c} moved its {x} depot to a larger site.",
    "A delegation from {c} visited our {x} office.",
    "{c} reported a damaged pallet in {x}.",
)
_TITLES = (
    "Support ticket {num}",
    "Sales call notes {d:%Y-%m-%d}",
    "Invoice reminder {num}",
    "News brief {d:%d %B %Y}",
    "Partner email {d:%Y-%m-%d}",
    "Hiring note {d:%B %Y}",
    "Account review {d:%Y-%m-%d}",
)


def _person(rng: random.Random) -> str:
    return f"{rng.choice(_GIVEN)} {rng.choice(_SURNAMES)}"


def company_documents(count: int = 200, seed: int = 5) -> list[SyntheticDocument]:
    """`count` documents, oldest first, each naming the company one to three times."""
    rng = random.Random(f"entity-stress:{seed}:{count}")
    start = datetime(2025, 2, 3, 9, 0, tzinfo=UTC)
    documents = []
    for index in range(count):
        said = start + timedelta(hours=index * 19 + rng.randint(0, 8))
        lines = []
        for sentence in rng.sample(_SENTENCES, rng.randint(2, 4)):
            name = SHORT_NAME if index > 0 and rng.random() < 0.33 else COMPANY
            lines.append(
                sentence.format(
                    p=_person(rng),
                    c=name,
                    owner=f"{name}'" if name.endswith("s") else f"{name}'s",
                    x=rng.choice(_CITIES),
                    n=rng.randint(3, 60),
                    num=rng.randint(10000, 99999),
                    product=rng.choice(_PRODUCTS),
                )
            )
        title = rng.choice(_TITLES).format(d=said, num=rng.randint(1000, 9999))
        if index % 5 == 4:
            speakers = [_person(rng).split()[0] for _ in range(2)]
            turns = [
                f"[T{i} | {(said + timedelta(minutes=i)).strftime('%Y-%m-%dT%H:%M:%SZ')}]"
                f" {speakers[i % 2]}: {line}"
                for i, line in enumerate(lines, start=1)
            ]
            body, media_type = "\n".join(turns) + "\n", CONVERSATION
        else:
            body, media_type = f"{title}.\n\n" + " ".join(lines) + "\n", "text/plain"
        documents.append(
            SyntheticDocument(f"entity-stress/{seed}/{index:04d}", title, media_type, body, said)
        )
    return documents
