"""Cheap pronoun and document-reference resolution for decontextualising claim text."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from services.ingest.extraction.addressees import Addressee
from services.ingest.extraction.antecedents import (
    PLURAL_PRONOUNS,
    Mention,
    a_gathering,
    bound_subject,
    only_a_place,
    own_subject,
    personal_name,
    relative_head,
    weak_opener,
)
from shared.text.units import person_shaped

__all__ = [
    "Mention",
    "Rewriter",
    "ShortForms",
    "context_mentions",
    "in_main_clause",
    "is_honorific",
    "third_person",
]

_PERSON_PRONOUNS = {"he", "him", "she", "himself", "herself"}
_PERSON_POSSESSIVE = {"his", "hers"}
_ORG_PRONOUNS = {"it", "they", "them", "itself", "themselves"}
_ORG_POSSESSIVE = {"its", "their", "theirs"}
_FIRST_SINGULAR = {"i", "me", "myself"}
_REFLEXIVES = {"itself", "themselves", "himself", "herself"}
_FIRSTPLURAL_PRONOUNS = {"we", "us", "ourselves"}
_DOC_NOUNS = {"document", "report", "spec", "specification", "memo", "page", "proposal", "doc"}
_DOC_NOUNS |= {"meeting", "notes", "rfc", "note", "minutes", "call"}
_CONTRACTIONS = {"'m": "is", "’m": "is", "'ve": "has", "’ve": "has", "'ll": "will", "’ll": "will"}
_FIRST_AUX = {"am": "is", "have": "has", "do": "does", "are": "is", "'re": "is", "’re": "is"}
_CONTEXT_TAIL = 1500
_ORG_REACH = 200
_EXPANSIONS = {"'re": "are", "'ve": "have", "'ll": "will", "'d": "had", "'s": "is", "'m": "is"}
# The same written without the apostrophe in chat ("im ooo", "ive got it"): the tokenizer
# splits them off the pronoun alike, with no space between.
_BARE_EXPANSIONS = {"m": "is", "ve": "have", "re": "are"}


def _dummy_it(token: Any) -> bool:
    """Expletive "it" ("it's tough", "it takes courage to …") refers to nothing."""
    head = token.head
    if token.lower_ != "it":
        return False
    clause = any(c.dep_ in ("xcomp", "ccomp", "acomp", "csubj") for c in head.children)
    if head.lemma_ == "be":
        # "It is a component of X", "it is in Berlin" speak of a thing; "it is hard to …",
        # "it is a shame that …" of nothing (an attribute noun with a clause of its own).
        attr = next((c for c in head.children if c.dep_ == "attr"), None)
        return (
            clause
            or (
                attr is not None and any(c.dep_ in ("relcl", "acl", "ccomp") for c in attr.children)
            )
            or (attr is None and not any(c.dep_ == "prep" for c in head.children))
        )
    return head.lemma_ in ("take", "seem", "feel", "look", "sound", "make") or clause


def third_person(lemma: str) -> str:
    """Third-person singular present of a verb lemma ("go" -> "goes", "try" -> "tries")."""
    irregular = {"be": "is", "have": "has", "do": "does", "go": "goes"}
    if lemma in irregular:
        return irregular[lemma]
    if re.search(r"(s|sh|ch|x|z|o)$", lemma):
        return lemma + "es"
    if re.search(r"[^aeiou]y$", lemma):
        return lemma[:-1] + "ies"
    return lemma + "s"


# What may follow a name inside a speaker label: more words of the name, then the colon.
_REST_OF_LABEL = r"(?:\s+[A-Z][\w'’.-]*)*\s*:"


def context_mentions(context: str | None, known: Mapping[str, str]) -> list[Mention]:
    """The last occurrence of each known name in the tail of the preceding text; speaker
    labels ("Caroline: ...", and "Raj" of "Raj Iyer: ...") are skipped because a label is not a
    mention."""
    if not context or not known:
        return []
    tail = context[-_CONTEXT_TAIL:]
    found: list[Mention] = []
    for name, label in known.items():
        last = None
        for m in re.finditer(rf"\b{re.escape(name)}\b(?!{_REST_OF_LABEL})", tail):
            last = m
        if last is not None:
            found.append(Mention(name, label, last.start() - len(tail)))
    return found


# "Dr. Lena Brandt" and "Lena Brandt" are one person: a title of address is no part of a name.
_HONORIFICS = frozenset({"dr", "prof", "mr", "mrs", "ms", "mx", "sir", "dame", "rev", "hon"})


def is_honorific(word: str) -> bool:
    """A title of address written before a name ("Dr.", "Ms", "Prof")."""
    return word.lower().rstrip(".") in _HONORIFICS


@dataclass(frozen=True)
class ShortForms:
    """Full names a document used before a passage, by their given name and surname, so a
    later bare "Leo" or "Whitaker" reads as "Leo Whitaker" (SPEC §3). A short form two full
    names share stays as written: the resolver sees it ambiguous and records so."""

    by_word: Mapping[str, tuple[str, ...]]

    @classmethod
    def from_names(cls, names: Iterable[str]) -> ShortForms:
        index: dict[str, list[str]] = {}
        for name in dict.fromkeys(names):
            words = name.split()
            while words and is_honorific(words[0]):
                words = words[1:]
            if len(words) < 2 or not all(w[:1].isupper() for w in words):
                continue  # "Ahmed joined Cobaltline" is no name, whatever NER said
            for word in {words[0], words[-1]}:
                if word not in index.get(word, []):
                    index.setdefault(word, []).append(name)
        return cls({word: tuple(full) for word, full in index.items()})

    def expand(self, word: str) -> str | None:
        """The one full name `word` is short for, or None (unknown or ambiguous)."""
        full = self.by_word.get(word, ())
        return full[0] if len(full) == 1 else None

    def ambiguous(self, word: str) -> bool:
        return len(self.by_word.get(word, ())) > 1


_NO_SHORT_FORMS = ShortForms({})


def in_main_clause(token: Any) -> bool:
    """Whether `token` hangs on its sentence's main verb (or a verb coordinated with it), not
    on a reported, relative or adverbial clause."""
    verb = token.head
    return bool(verb.dep_ == "ROOT" or (verb.dep_ == "conj" and verb.head.dep_ == "ROOT"))


class Rewriter:
    """Rewrites a clause's tokens into decontextualised text for one passage."""

    def __init__(
        self,
        mentions: Sequence[Mention],
        speaker: str | None,
        title: str | None,
        base_offset: int,
        short_forms: ShortForms = _NO_SHORT_FORMS,
        lone_names: frozenset[int] = frozenset(),
        addressee: Addressee | None = None,
        topic: str | None = None,
    ) -> None:
        """`lone_names` are indices of tokens that are a whole name by themselves (a bare
        "Leo"), the only ones a short form may expand; `addressee` is whom the passage
        speaks to by name, whom "you" means; `topic` what the title (or the heading over
        the passage) names, if it names a thing at all."""
        self._addressee = addressee
        self._topic = topic
        self._mentions = sorted(mentions, key=lambda m: m.position)
        self._speaker = speaker
        self._title = title
        self._base = base_offset
        self._short_forms = short_forms
        self._lone_names = lone_names
        self.used: list[Mention] = []
        # (sentence start, name) of each person a "she"/"he" was read as: "she's joining
        # their sprint planning" is not her own.
        self._people: set[tuple[int, str]] = set()

    def antecedent(
        self, token: Any, labels: Iterable[str], *, personal: bool = False
    ) -> Mention | None:
        """Most recent mention with one of `labels` before `token`; never the speaker, who
        refers to themself in the first person. A pronoun that is a subject continues the
        last subject before its own sentence when one is in reach ("Lighthouse is our status
        page for Orbitra. It is part of the console": Lighthouse, not Orbitra)."""
        wanted = set(labels)
        if wanted == {"ORG"}:
            # "it", "they", "their" mean a thing or an organisation: not a name that reads as
            # a person's whatever the small NER labelled it, and any other name it called a
            # person ("Grayhaven") may be one.
            before = [
                m
                for m in self._mentions
                if m.position < token.idx
                and (m.label == "ORG" or (m.label == "PERSON" and not m.personal))
                and not weak_opener(m, token.doc)
                and not (token.lower_ in PLURAL_PRONOUNS and a_gathering(m, token.doc))
                and (token.sent.start, m.name) not in self._people
            ]
        else:
            before = [
                m
                for m in self._mentions
                if m.position < token.idx
                and (m.label in wanted or (personal and (m.personal or person_shaped(m.name))))
                and m.name != self._speaker
                # "Jess moved to Glasgow. She …": the small NER calls the city a person, but
                # no "she" means a large city (one named like a person may: "Sofia", "Victoria").
                and not (personal and only_a_place(m.name))
            ]
            if personal and any(m.personal or person_shaped(m.name) for m in before):
                # "Kasimir Oduya is no longer with Trellisoft, he left them": a name that reads
                # as a person's before one the small NER merely labelled a person.
                before = [m for m in before if m.personal or person_shaped(m.name)]
                # "Harrowgate Supplies has a new contact, Imelda Roche. She joined in April",
                # "today is Josefine Aalto's last day at Brisk Ledger. She's off to …": a
                # company shaped like a name is no "she" beside a person's name.
                if any(personal_name(m) for m in before):
                    before = [m for m in before if m.label != "ORG" or personal_name(m)]
        before = [m for m in before if not own_subject(token, m) and not relative_head(token, m)]
        if not before:
            return None
        subject_like = token.dep_ in ("nsubj", "nsubjpass") or (
            token.dep_ == "poss" and token.head.dep_ in ("nsubj", "nsubjpass")
        )
        if token.dep_ in ("nsubj", "nsubjpass") and token.head.dep_ == "advcl":
            # "Jo Kim joined Helix after she left Corvid": the subject of an adverbial clause
            # continues the sentence's subject, not the nearest name (an object).
            here = [m for m in before if m.position >= token.sent.start_char and m.is_subject]
            if here:
                return here[-1]
        if subject_like and in_main_clause(token if token.dep_ != "poss" else token.head):
            # Only across a sentence boundary: inside one, the nearest name is the antecedent.
            # And only for the main clause's subject: in "He said she was keen" the reported
            # clause's subject is someone other than the speaker the main one continues.
            earlier = [m for m in before if m.position < token.sent.start_char]
            if earlier and earlier[-1] is before[-1]:
                subject = next((m for m in reversed(earlier) if m.is_subject), None)
                if subject is not None and token.idx - subject.position <= _ORG_REACH:
                    return subject
        return before[-1]

    def holder_name(self, tokens: Sequence[Any]) -> str:
        """A holder phrase with its pronouns resolved."""
        return self.render(tokens, capitalise=False)

    def word(self, token: Any) -> str | None:
        """The replacement for one token, or None to keep it."""
        if len(token.text) > 1 and token.text.isupper():
            return None  # "IT", "US": an acronym, not the pronoun "it" or "us"
        low = token.lower_
        if self._speaker and low in _FIRST_SINGULAR and token.tag_ == "PRP":
            return self._speaker
        if self._speaker and low in ("my", "mine"):
            return f"{self._speaker}'s"
        if self._speaker and low in _FIRSTPLURAL_PRONOUNS and token.tag_ == "PRP":
            return f"{self._speaker} and others"
        if self._speaker and low in ("our", "ours"):
            return f"{self._speaker}'s"
        if self._addressee and low == "you" and token.tag_ == "PRP":
            return self._addressee.name
        if self._addressee and low in ("your", "yours"):
            return f"{self._addressee.name}'s"
        if low in _REFLEXIVES and token.i > 0 and token.doc[token.i - 1].pos_ in ("NOUN", "PROPN"):
            return None  # "Discovery itself is unchanged": emphasis, no second mention
        if low in _PERSON_PRONOUNS or (low == "her" and token.tag_ == "PRP"):
            return self._named(token, ("PERSON",), possessive=False)
        if low in _PERSON_POSSESSIVE or (low == "her" and token.tag_ == "PRP$"):
            bound = bound_subject(token)
            return self._named(bound or token, ("PERSON",), possessive=True)
        if low in _ORG_PRONOUNS and token.tag_ == "PRP" and not _dummy_it(token):
            named = self._named(token, ("ORG",), possessive=False, nearby=True)
            return named or self._title_for_it(token)
        if low in _ORG_POSSESSIVE:
            return self._named(token, ("ORG",), possessive=True, nearby=True)
        if token.i in self._lone_names and token.text != self._speaker:
            return self._short_forms.expand(token.text)
        return self._agreement(token)

    def _title_for_it(self, token: Any) -> str | None:
        """A subject "it" with nothing named before it in the passage or its context: the
        document is about one thing, and its title names it ("Orion rollout": "It went live
        in six warehouses"). A title that only says what kind of document it is ("Standup
        notes", "Weekly status") names nothing "it" could be."""
        if token.lower_ != "it" or token.dep_ not in ("nsubj", "nsubjpass") or not self._topic:
            return None
        if token.sent.start != 0:
            return None  # later sentences speak of what the earlier ones named
        if any(m.position < token.idx and m.label == "ORG" for m in self._mentions):
            return None  # a thing was named, but too far back to be sure
        return self._topic

    def _named(
        self, token: Any, labels: tuple[str, ...], possessive: bool, nearby: bool = False
    ) -> str | None:
        # "she"/"he" means a person: a mention the NER labelled one, or a name that reads as
        # a person's whatever label the small NER gave it ("Bea Costa moved to Lintel. Since
        # then she has led …"; "I'll ping Nadia, she manages IT access").
        m = self.antecedent(token, labels, personal=labels == ("PERSON",))
        if m is None:
            return None
        if nearby and not 0 <= token.idx - m.position <= _ORG_REACH:
            return None  # "it"/"they" mostly mean things or people: only a close ORG counts
        self.used.append(m)
        # "Olumide moved …, so he now leads on-call" after "Olumide Bankole": the pronoun
        # means the person the short form stands for.
        name = self._short_forms.expand(m.name) if " " not in m.name else None
        name = name or m.name
        if labels == ("PERSON",):
            self._people |= {(token.sent.start, m.name), (token.sent.start, name)}
        return f"{name}'s" if possessive else name

    def _agreement(self, token: Any) -> str | None:
        """Fix the verb after a replaced "I" ("I am" -> "Caroline is", "I love" -> "loves") or
        an addressed "you" ("you are" -> "Lena is")."""
        if not self._speaker and self._addressee is None:
            return None
        head = token.head if token.dep_ in ("aux", "auxpass") else token
        subj = next((c for c in head.children if c.dep_ in ("nsubj", "nsubjpass")), None)
        if subj is None or subj.i > token.i:
            return None
        addressed = subj.lower_ == "you" and self._addressee is not None
        if subj.lower_ != "i" and not addressed:
            return None
        low = token.lower_
        if addressed and low == "were":
            return "was"  # "you were" -> "Lena was"
        if token.tag_ != "VBP":
            return None  # "do not have": only the finite verb agrees with the subject
        if low in _CONTRACTIONS:
            return _CONTRACTIONS[low]
        if low in _FIRST_AUX:
            return _FIRST_AUX[low]
        if (
            token.tag_ == "VBP"
            and token.i == head.i
            and not any(c.dep_ == "aux" for c in head.children)
        ):
            return third_person(token.lemma_.lower())
        return None

    def render(self, tokens: Sequence[Any], capitalise: bool = True) -> str:
        """Join tokens with their whitespace, applying replacements and the document title."""
        parts: list[str] = []
        skip_next = prev_replaced = False
        for k, tok in enumerate(tokens):
            if skip_next:
                skip_next = False
                continue
            if self._addressee and tok.i in self._addressee.vocative:
                continue  # "Mehmet, you'll be …": the name moves into the claim's subject
            nxt = tokens[k + 1] if k + 1 < len(tokens) else None
            if self._title and nxt is not None and self._is_doc_ref(tok, nxt):
                parts.append(f"{self._title}{nxt.whitespace_}")
                skip_next = True
                continue
            contraction = tok.lower_.replace("’", "'")
            bare = k > 0 and not tokens[k - 1].whitespace_ and contraction in _BARE_EXPANSIONS
            rep = None if bare and prev_replaced else self.word(tok)
            if (
                rep is None
                and prev_replaced
                and (contraction in _EXPANSIONS or bare)
                and tok.tag_ != "POS"  # "Orbitra's clients" keeps its possessive
            ):
                # "we're" -> "Caroline and others are", "im" -> "Priya is"
                rep = _EXPANSIONS.get(contraction) or _BARE_EXPANSIONS[contraction]
            joined = contraction in _EXPANSIONS or bare
            # A word left out between two kept ones ("Project 'Falcon' Review" without its
            # quotes) takes its spacing with it: keep a space where the text had one.
            spaced = (
                nxt is not None
                and nxt.i > tok.i + 1
                and not tok.whitespace_
                and any(t.whitespace_ for t in tok.doc[tok.i + 1 : nxt.i])
            )
            if rep is None:
                parts.append(tok.text_with_ws + (" " if spaced else ""))
            else:
                parts.append(("" if not joined else " ") + rep + tok.whitespace_)
            prev_replaced = rep is not None and not joined
        text = "".join(parts).strip()
        text = re.sub(r"[\s,;:–-]+$", "", text)
        if capitalise and text:
            text = text[0].upper() + text[1:]
        return text

    @staticmethod
    def _is_doc_ref(tok: Any, nxt: Any) -> bool:
        low, noun = tok.lower_, nxt.lower_
        if low == "this" and noun in _DOC_NOUNS:
            return True
        # "today's meeting" is this one; "the call" may be any call the notes mention.
        return low == "today's" and noun in ("meeting", "call")
