"""The governed predicate vocabulary: core predicates, packs, synonyms, labels (data only)."""

from __future__ import annotations

import re

from shared.beliefs.slots import OWNED_BY_ESCAPE

__all__ = [
    "CORE_PREDICATES",
    "FILLER",
    "IRREGULAR",
    "LABELS",
    "LEADERSHIP_PHRASES",
    "LEADERSHIP_VERBS",
    "OTHER_PREDICATE_RE",
    "PACKS",
    "PHASES",
    "PLACEMENT_VERBS",
    "STATE_PREDICATES",
    "SYNONYMS",
]

CORE_PREDICATES: tuple[str, ...] = (
    "related_to",
    "works_for",
    "member_of",
    "affiliated_with",
    "founded",
    "located_in",
    "part_of",
    "authored",
    "created",
    "about",
    "knows_about",
    "knows",
    "participated_in",
    "works_on",
    "uses",
    "reports_to",
)
PACKS: dict[str, tuple[str, ...]] = {
    "work": ("blocks", "depends_on", "concerns", "decided_by", "assigned_to", "pursues"),
}
OTHER_PREDICATE_RE = re.compile(r"^other:[a-z][a-z0-9_]{1,40}$")
# Predicates that hold over a period rather than happen once: an event that establishes one
# ("joined the team yesterday", "moved to the search team in June") starts it, open-ended.
_STATE_PREDICATE_NAMES = (
    "related_to works_for member_of affiliated_with located_in part_of knows_about knows "
    "works_on uses reports_to blocks depends_on assigned_to pursues"
)
STATE_PREDICATES = frozenset(_STATE_PREDICATE_NAMES.split()) | {OWNED_BY_ESCAPE}

# Verb phrase (lemma form) -> (predicate, subject/object swapped). Passives ("founded by",
# "blocked by") need no entry: a trailing "by" inverts whatever the active form maps to.
SYNONYMS: dict[str, tuple[str, bool]] = {
    # works_for
    "work for": ("works_for", False),
    "work at": ("works_for", False),
    "employed by": ("works_for", False),
    "employ": ("works_for", True),
    "hire": ("works_for", True),
    "employee of": ("works_for", False),
    "be on the payroll of": ("works_for", False),
    "be staff at": ("works_for", False),
    # member_of
    "member of": ("member_of", False),
    "be on the team of": ("member_of", False),
    "be on": ("member_of", False),
    "stay on": ("member_of", False),
    "remain on": ("member_of", False),
    "stay in": ("member_of", False),
    "lead": ("member_of", False),
    "head": ("member_of", False),
    "run": ("member_of", False),
    "chair": ("member_of", False),
    "co-lead": ("member_of", False),
    "serve on": ("member_of", False),
    "sit on": ("member_of", False),
    # placements: works_for or member_of by what the object names (PLACEMENT_VERBS)
    "join": ("works_for", False),
    "rejoin": ("works_for", False),
    "start at": ("works_for", False),
    "start with": ("works_for", False),
    "start in": ("works_for", False),
    "begin at": ("works_for", False),
    "return to": ("works_for", False),
    "come back to": ("works_for", False),
    "be back at": ("works_for", False),
    "be back with": ("works_for", False),
    "be back on": ("member_of", False),
    "move to": ("works_for", False),
    "transfer to": ("works_for", False),
    "switch to": ("works_for", False),
    # "signed with Orvane", "signed on with Halcyon": an engagement (a contract signed with
    # someone is the object "a contract", not this phrase)
    "sign with": ("works_for", False),
    "sign on with": ("works_for", False),
    "leave": ("works_for", False),
    "quit": ("works_for", False),
    "depart": ("works_for", False),
    "exit": ("works_for", False),
    "resign from": ("works_for", False),
    "step down from": ("works_for", False),
    "retire from": ("works_for", False),
    # "Ines Moreau, chief of staff at Arvo, resigned": the post's organisation as the object
    "resign": ("works_for", False),
    # "Tom Egan is out as CTO of Lumio": the post's organisation, left
    "be out as": ("works_for", False),
    "step down": ("works_for", False),
    "retire": ("works_for", False),
    # Being let go ends the employment; the active voice's subject is the employer ("Acme
    # laid off Ivo"), the passive's agent too ("was let go by Acme", parsed "let to go by").
    "lay off": ("works_for", True),
    "lay off from": ("works_for", False),
    "let go": ("works_for", True),
    "let to go": ("works_for", True),
    "fire": ("works_for", True),
    "fire from": ("works_for", False),
    "dismiss": ("works_for", True),
    "head up": ("member_of", False),
    "move from": ("works_for", False),
    "transfer from": ("works_for", False),
    "recruit": ("works_for", True),
    "poach": ("works_for", True),
    "be at": ("works_for", False),
    "be with": ("works_for", False),
    "start as": ("works_for", False),
    # "was hired as a PM at Ostra", "joined as CTO of Vexa": the position's organisation
    "hire as": ("works_for", False),
    "recruit as": ("works_for", False),
    "join as": ("works_for", False),
    # "left for Brindle": the employer gone to (one leaves the old one for it)
    "leave for": ("works_for", False),
    "bring in as": ("works_for", False),
    "bring on as": ("works_for", False),
    "take on as": ("works_for", False),
    "employ as": ("works_for", False),
    "work as": ("works_for", False),
    "go back to": ("works_for", False),
    "move onto": ("works_for", False),
    "move into": ("works_for", False),
    "step back from": ("works_for", False),
    "step away from": ("works_for", False),
    # affiliated_with
    "affiliated with": ("affiliated_with", False),
    "consult for": ("affiliated_with", False),
    "advise": ("affiliated_with", False),
    "freelance for": ("affiliated_with", False),
    "freelance at": ("affiliated_with", False),
    "moonlight for": ("affiliated_with", False),
    "moonlight at": ("affiliated_with", False),
    "consult at": ("affiliated_with", False),
    "volunteer at": ("affiliated_with", False),
    "volunteer for": ("affiliated_with", False),
    "associated with": ("affiliated_with", False),
    "partner with": ("affiliated_with", False),
    "collaborate with": ("affiliated_with", False),
    # founded
    "found": ("founded", False),
    "co-found": ("founded", False),
    "cofound": ("founded", False),
    "establish": ("founded", False),
    "set up": ("founded", False),
    # located_in
    "located in": ("located_in", False),
    "live in": ("located_in", False),
    "be based in": ("located_in", False),
    # "works out of the London office", "operates out of Lagos": where one is based.
    "work out of": ("located_in", False),
    "operate out of": ("located_in", False),
    "be based out of": ("located_in", False),
    "base out of": ("located_in", False),
    "base in": ("located_in", False),
    "locate in": ("located_in", False),
    "host in": ("located_in", False),
    "run in": ("located_in", False),
    "host on": ("located_in", False),
    "deploy in": ("located_in", False),
    "station in": ("located_in", False),
    "reside in": ("located_in", False),
    "headquartered in": ("located_in", False),
    "headquarter in": ("located_in", False),
    "situated in": ("located_in", False),
    "situate in": ("located_in", False),
    "sit in": ("located_in", False),
    "house in": ("located_in", False),
    "be housed in": ("located_in", False),
    "relocate to": ("located_in", False),
    "relocate from": ("located_in", False),
    "move away from": ("located_in", False),
    # part_of
    "part of": ("part_of", False),
    "component of": ("part_of", False),
    "subsidiary of": ("part_of", False),
    "division of": ("part_of", False),
    "unit of": ("part_of", False),
    "arm of": ("part_of", False),
    "branch of": ("part_of", False),
    "offshoot of": ("part_of", False),
    "affiliate of": ("part_of", False),
    "department of": ("part_of", False),
    "module of": ("part_of", False),
    "belong to": ("part_of", False),
    "become part of": ("part_of", False),
    # "Aster Group acquired Quill": Quill is part of Aster from then ("was acquired by" is
    # the passive). "bought" stays out: one buys far more than companies.
    "acquire": ("part_of", True),
    "cease to be part of": ("part_of", False),
    "sit under": ("part_of", False),
    "fall under": ("part_of", False),
    "be under": ("part_of", False),
    "sit within": ("part_of", False),
    "fall within": ("part_of", False),
    "be within": ("part_of", False),
    "roll up into": ("part_of", False),
    "roll up to": ("part_of", False),
    "roll into": ("part_of", False),
    "include": ("part_of", True),
    "contain": ("part_of", True),
    # authored
    "write": ("authored", False),
    "author": ("authored", False),
    "draft": ("authored", False),
    "pen": ("authored", False),
    # created
    "create": ("created", False),
    "build": ("created", False),
    "make": ("created", False),
    "develop": ("created", False),
    "design": ("created", False),
    "invent": ("created", False),
    # about
    "about": ("about", False),
    "cover": ("about", False),
    "describe": ("about", False),
    "discuss": ("about", False),
    # knows_about
    "know about": ("knows_about", False),
    "expert in": ("knows_about", False),
    "familiar with": ("knows_about", False),
    "specialize in": ("knows_about", False),
    "skilled in": ("knows_about", False),
    "have experience with": ("knows_about", False),
    # knows
    "know": ("knows", False),
    "friend of": ("knows", False),
    "friends with": ("knows", False),
    "acquainted with": ("knows", False),
    "colleague of": ("knows", False),
    # participated_in
    "participate in": ("participated_in", False),
    "attend": ("participated_in", False),
    "take part in": ("participated_in", False),
    "speak at": ("participated_in", False),
    "present at": ("participated_in", False),
    "compete in": ("participated_in", False),
    "involved in": ("participated_in", False),
    # works_on
    "work on": ("works_on", False),
    "start on": ("works_on", False),
    "take over": ("works_on", False),
    "take charge of": ("works_on", False),
    "take responsibility for": ("works_on", False),
    "assume responsibility for": ("works_on", False),
    "have responsibility for": ("works_on", False),
    "hand over": ("works_on", False),
    "hand off": ("works_on", False),
    "contribute to": ("works_on", False),
    "responsible for": ("works_on", False),
    "maintain": ("works_on", False),
    # uses
    "use": ("uses", False),
    "rely on": ("uses", False),
    "adopt": ("uses", False),
    "run on": ("uses", False),
    "utilize": ("uses", False),
    "migrate to": ("uses", False),
    "migrate from": ("uses", False),
    # reports_to
    "report to": ("reports_to", False),
    "work under": ("reports_to", False),
    "answer to": ("reports_to", False),
    "manage": ("reports_to", True),
    "supervise": ("reports_to", True),
    # related_to
    "related to": ("related_to", False),
    "connected to": ("related_to", False),
    "linked to": ("related_to", False),
    # work pack
    "block": ("blocks", False),
    "hold up": ("blocks", False),
    "depend on": ("depends_on", False),
    "require": ("depends_on", False),
    "concern": ("concerns", False),
    "regard": ("concerns", False),
    "decided by": ("decided_by", False),
    "decide": ("decided_by", True),
    "approve": ("decided_by", True),
    "assigned to": ("assigned_to", False),
    # Ownership is one relation, the owned thing's: "the Payments team owns billing" and
    # "billing is owned by the Payments team" are both billing -> assigned_to -> Payments team,
    # so a new owner is a successor in the thing's slot, whichever phrasing each source used.
    "owned by": ("assigned_to", False),
    "own": ("assigned_to", True),
    "take ownership of": ("assigned_to", True),
    "assume ownership of": ("assigned_to", True),
    "have ownership of": ("assigned_to", True),
    "handled by": ("assigned_to", False),
    "pursue": ("pursues", False),
    "aim for": ("pursues", False),
}
# Verb phrases whose relation is a placement: employment in a company, membership of a team
# (chosen by the object's head noun: "joined Globex" vs "joined the data team").
# "on" stands for "is on the payments team" ("be" is filler): a team, or no placement at all.
PLACEMENT_VERBS = frozenset(
    {
        "join", "rejoin", "start", "begin", "return", "come", "move", "transfer", "switch", "leave",
        "quit", "depart", "exit", "resign", "step", "retire", "recruit", "hire", "poach", "on",
        "stay", "remain", "at", "go", "lay", "let", "fire", "dismiss", "sign", "back", "out",
    }
)  # fmt: skip
# Leading something: a team's member, or working on a project or product ("leads Lighthouse").
LEADERSHIP_VERBS = frozenset({"lead", "head", "run", "chair", "own", "co-lead", "colead"})
# Phrases whose first word alone says nothing ("take part in"): taking a team over leads it,
# handing it over stops leading it.
LEADERSHIP_PHRASES = frozenset(
    {"take over", "take charge of", "take ownership of", "assume ownership of", "hand over",
     "hand off", "take responsibility for", "assume responsibility for"}
)  # fmt: skip
# Verbs that start a placement, or end one: "left Acme in March" closes the employment then.
PHASES: dict[str, str] = {
    **dict.fromkeys(
        ("join", "rejoin", "start at", "start with", "start in", "begin at", "return to",
         "come back to", "be back at", "be back with", "be back on",
         "move to", "transfer to", "switch to", "hire", "recruit", "poach", "relocate to",
         "go back to", "move onto", "move into", "start on", "take over", "take charge of",
         "take ownership of", "assume ownership of", "take responsibility for",
         "assume responsibility for", "adopt", "become part of", "migrate to", "start as",
         "acquire", "hire as", "recruit as", "join as", "bring in as", "bring on as",
         "take on as", "leave for", "sign with", "sign on with"),
        "start",
    ),
    **dict.fromkeys(
        ("leave", "quit", "depart", "exit", "resign from", "step down from", "retire from",
         "resign", "step down", "retire", "be out as",
         "move from", "transfer from", "relocate from", "move away from", "step back from",
         "step away from", "migrate from", "cease to be part of", "hand over", "hand off",
         "lay off", "lay off from", "let go", "let to go", "fire", "fire from", "dismiss"),
        "end",
    ),
}  # fmt: skip
IRREGULAR: dict[str, str] = {
    "wrote": "write",
    "written": "write",
    "built": "build",
    "made": "make",
    "led": "lead",
    "laid": "lay",
    "knew": "know",
    "known": "know",
    "took": "take",
    "taken": "take",
    "ran": "run",
    "sat": "sit",
    "set": "set",
    "spoke": "speak",
    "spoken": "speak",
    "held": "hold",
    "co-founded": "co-found",
    "penned": "pen",
    "left": "leave",
    "went": "go",
    "began": "begin",
    # Past forms of the verbs values are stated with ("paid 3.1%", "grew to 212", "sold 40").
    "paid": "pay",
    "grew": "grow",
    "grown": "grow",
    "fell": "fall",
    "fallen": "fall",
    "rose": "rise",
    "risen": "rise",
    "sold": "sell",
    "spent": "spend",
    "won": "win",
    "lost": "lose",
    "kept": "keep",
    "gave": "give",
    "given": "give",
    "got": "get",
    "brought": "bring",
    "bought": "buy",
    "sent": "send",
    "became": "become",
    "came": "come",
    "meant": "mean",
    "drew": "draw",
    "drawn": "draw",
    "shrank": "shrink",
    "shrunk": "shrink",
}
# Dropped wherever they occur: auxiliaries, articles, time adverbs and negation. Negation is
# carried by the claim's polarity, not by the predicate.
_FILLER_WORDS = (
    "is are was were be been being am has have had will would shall should can could may might "
    "must do does did a an the also now currently still recently formerly previously just "
    "already actually officially reportedly then later originally not never no longer doesn't "
    "don't didn't isn't wasn't aren't weren't hasn't haven't won't"
)
FILLER = frozenset(_FILLER_WORDS.split())
LABELS: dict[str, tuple[str, str]] = {
    "related_to": ("is related to", "is not related to"),
    "works_for": ("works for", "does not work for"),
    "member_of": ("is a member of", "is not a member of"),
    "affiliated_with": ("is affiliated with", "is not affiliated with"),
    "founded": ("founded", "did not found"),
    "located_in": ("is located in", "is not located in"),
    "part_of": ("is part of", "is not part of"),
    "authored": ("authored", "did not author"),
    "created": ("created", "did not create"),
    "about": ("is about", "is not about"),
    "knows_about": ("knows about", "does not know about"),
    "knows": ("knows", "does not know"),
    "participated_in": ("participated in", "did not participate in"),
    "works_on": ("works on", "does not work on"),
    "uses": ("uses", "does not use"),
    "reports_to": ("reports to", "does not report to"),
    "blocks": ("blocks", "does not block"),
    "depends_on": ("depends on", "does not depend on"),
    "concerns": ("concerns", "does not concern"),
    "decided_by": ("was decided by", "was not decided by"),
    "assigned_to": ("is assigned to", "is not assigned to"),
    "pursues": ("pursues", "does not pursue"),
}
