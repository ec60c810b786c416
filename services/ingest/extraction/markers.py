"""Discourse markers that open a line ("Update:", "Correction —", "FYI,") or end a chat line
("… btw", "… lol") and are not content."""

from __future__ import annotations

import re

from services.ingest.extraction.unknown_words import is_english
from shared.entities.given_names import is_given_name

__all__ = ["capitalised_at", "mask_markers"]

# Words that label what follows rather than say anything: never an entity, never a subject.
_MARKER_WORDS = (
    r"update|updates|correction|corrections|note|notes|nb|n\.b\.|fyi|reminder|heads[- ]up|"
    r"edit|edited|ps|p\.s\.|important|announcement|clarification|addendum|erratum|summary|"
    r"tl;?dr|recap|context|background|action|action\s+item|decision|outcome|result|"
    r"quick\s+update|quick\s+note|small\s+correction|update\s+\d+|breaking|news|re|fwd?|"
    r"quick\s+one|one\s+more\s+thing|fwiw|tbh|afaik|iirc|"
    # A retraction of what was said before it, then the statement that holds instead.
    r"fix|quick\s+fix|small\s+fix|(?:my\s+)?apologies|one\s+fix|oops|whoops|scratch\s+that|strike\s+that|ignore\s+that|disregard\s+that|my\s+bad|"
    r"(?:please\s+)?(?:ignore|disregard)\s+my\s+(?:last|previous|earlier)\s+(?:email|message|note|mail|msg)"
)
# "Small news:", "Quick reminder —", "Big update:": a size or mood word before the marker.
_MARKER_QUALIFIERS = (
    r"small|big|quick|short|brief|good|bad|great|sad|exciting|happy|final|minor|major|"
    r"important|personal|team|some|little"
)
# "Quick update from my side:", "News from the Berlin team —": where the marker comes from.
_MARKER_SOURCE = (
    r"(?:\s+from\s+(?:(?:my|our|the|[\w'’]+['’]s)\s+(?:[\w'’]+\s+)?(?:side|end|desk|team)"
    r"|me|us))?"
)
# How the news after a frame opens: a name, "the"/"we"/"our", or a fronted date ("just
# confirming that from April 1st Loomwork Pro moves to EUR 26").
_NEWS_OPENS = r"(?=[A-Z]|(?:the|we|our|from|since|starting|effective|after|as\s+of|on|in)\b)"
_MARKER_RE = re.compile(
    rf"(?im)^(?P<lead>[ \t>*\-•]*)(?P<marker>(?:(?:{_MARKER_QUALIFIERS})\s+){{0,2}}"
    rf"(?:{_MARKER_WORDS}){_MARKER_SOURCE}\s*(?:[:—–]|-\s|,(?=\s))"
    # "(just a) reminder that Helios goes live …", "heads up that …": what follows is the news.
    r"|(?:(?:just|a|quick|friendly|gentle|small)\s+)*(?:reminder|heads[- ]up|fyi|psa)\s+that\s+"
    # "ok so the Lisbon team is now Carla's", "anyway, …", "oh and …": a chat's opener.
    r"|(?:fyi|btw|psa|heads[- ]up|tl;?dr|quick\s+update|update|ps|fwiw|tbh|afaik|iirc|"
    r"ok(?:ay)?,?\s+so|so\s+yeah|anyways?|oh\s+and|"
    # A reply's acknowledgement: "yep send contracts my way", "ok i'll take it".
    r"yep|yeah|yup|yes|sure|ok(?:ay)?|kk|noted|ack|np|lol|haha)\b[,!.]?\s+"
    r"(?=[a-z]))"
)
# The writer's pleasure before the news: "We're delighted", "I am so pleased", "Thrilled".
_PLEASED = (
    r"(?:(?:i\s*['’]?m|i\s+am|we\s*['’]?re|we\s+are)\s+)?(?:\w+\s+)?(?:delighted|pleased|"
    r"happy|excited|thrilled|proud|glad)"
)
# "just confirming Nadia signed the MSA", "turns out the outage was …", "so the plan is that
# from 1 June Ben takes over …": a frame without a subject around the news it carries. The
# news then opens the sentence, capitalised as it would be without the frame, so the parser
# reads "From 1 June …" as it does standing alone.
_FRAME_RE = re.compile(
    rf"(?im)^(?P<lead>[ \t>*\-•]*)(?P<marker>(?:just\s+)?confirming(?:\s+that)?\s+{_NEWS_OPENS}"
    r"|(?:it\s+)?turns\s+out(?:\s+that)?\s+"
    rf"|(?:so\s+)?the\s+plan\s+is(?:\s+that)?\s+{_NEWS_OPENS}"
    # "I'm delighted to share that Priyanka has been promoted", "We are pleased to announce
    # that …", "Happy to report the migration finished": the writer's pleasure frames the news
    # it announces, with or without its "I'm"/"we're".
    rf"|{_PLEASED}\s+to\s+(?:share|announce|confirm|report|say|let\s+(?:you|"
    r"everyone|you\s+all)\s+know)(?:\s+that)?\s+"
    r")(?P<first>\w?)"
)
# "We're thrilled to welcome Dana Ruiz as our CMO": the welcome itself is the news, said by
# "we" ("We welcome Dana Ruiz as …"; the parser reads a bare "Welcome" after blanks as a name).
_WELCOME_RE = re.compile(
    r"(?im)^(?P<lead>[ \t>*\-•]*(?:i|we))(?P<marker>\s*['’]?(?:m|re)\s+|\s+(?:am|are)\s+)?"
    r"(?P<pleased>(?:\w+\s+)?(?:delighted|pleased|happy|excited|thrilled|proud|glad)\s+to)"
    r"(?=\s+welcome\s)"
)


def _unframed(m: re.Match[str]) -> str:
    return m.group("lead") + " " * len(m.group("marker")) + m.group("first").upper()


def _unpleased(m: re.Match[str]) -> str:
    return m.group("lead") + " " * (len(m.group(0)) - len(m.group("lead")))


# A chat tail after what was said ("I'm on the Infra team btw", "it ships Friday lol"): tone,
# not content; it would otherwise end the object's name.
_TAIL_RE = re.compile(
    r"(?i)(?P<tail>[ \t,]+(?:btw|fyi|lol|lmao|haha+|tbh|imo|imho|fwiw|afaik|iirc)\b)"
    r"(?=[ \t]*(?:[.!?,;:)]|$|\n))"
)


# A greeting that opens a turn or a line before what it says ("Hi all, I'm on the Risk team",
# "Hey team: the upgrade is done"), or that is a line of its own ("Hi all," over an email's
# first paragraph, which would otherwise run on into it): a courtesy, not content.
_GREETING_RE = re.compile(
    r"(?im)^(?P<lead>[ \t>*\-•]*)(?P<marker>(?:hi|hey|hello|hiya|dear|morning|good\s+"
    r"(?:morning|afternoon|evening)|thanks|thank\s+you)(?:\s+(?:all|team|everyone|folks|there|"
    r"y'?all|[A-Z][\w'’-]+))?\s*[,!.:;—–-]+[ \t]*)(?=\S|\n)"
)

# The group a line is addressed to, before what it tells them ("Team, starting Monday Lucia
# manages …", "heads up folks: as of March 1 …", "Everyone - the standup moves …"): whom it
# is said to, never its subject. "Team:" and "People:" alone are keys ("Team: Payments").
_GROUPS = r"folks|everyone|everybody|all|y'?all|guys"
_VOCATIVE_RE = re.compile(
    rf"(?im)^(?P<lead>[ \t>*\-•]*)(?P<marker>(?:(?:hi|hey|hello|heads[- ]up|fyi|ok(?:ay)?|so)"
    rf"\s+)?(?:(?:{_GROUPS})\s*[,:;!—–]|(?:{_GROUPS}|team|people)\s*(?:,|\s[—–-]\s))[ \t]*)(?=\S)"
)

# A notes line that opens with a person and a dash before what they did ("- Dana Kim - joined
# Lumio last week", "Omar — is out until Friday"): the dash stands for the subject's comma, so
# the parser reads the name apart from its verb; without it the line is a sentence.
_NAME_DASH_RE = re.compile(
    r"(?m)^(?P<lead>[ \t>*\-•]*[A-Z][\w'’.-]*(?:[ \t]+[A-Z][\w'’.-]*){0,2})"
    r"(?P<marker>[ \t]+[-–—][ \t]+)"
    r"(?=(?:is|was|has|had|will|won't|joined|left|moved|started|leads|owns|runs|took|takes)\b)"
)

# A nickname between a given name and a surname ("Alexandra 'Sasha' Petrov", 'Robert "Bob"
# Lane', "Katherine (Kate) Moss"): the parser reads the quotes apart and the name came out as
# "SashaPetrov". The nickname is blanked, so the full name reads as one; "Sasha" alone later
# is the nickname table's to resolve.
_NICKNAME_RE = re.compile(
    r"(?P<lead>\b[A-Z][a-z]+)(?P<marker>[ \t]+(?:'[A-Z][\w-]*'|\"[A-Z][\w-]*\"|“[A-Z][\w-]*”|"
    r"‘[A-Z][\w-]*’|\([A-Z][\w-]*\)))(?=[ \t]+[A-Z][a-z])"
)


def _without_nickname(m: re.Match[str]) -> str:
    # A given name, or one the word lists do not hold ("Yevgenia 'Zhenya' Korolenko"); not an
    # English word before a quoted one ("Project 'Falcon' Review").
    lead = m.group("lead").lower()
    if not is_given_name(lead) and is_english(lead):
        return m.group(0)
    return m.group("lead") + " " * len(m.group("marker"))


# A congratulation carrying the news it congratulates on: "Congrats to Yara Haddad, promoted to
# Director of Engineering from 1 May", "Congratulations to Omar Said, named head of Risk". The
# words before the name are masked, so the name is the subject of the participle after it.
_CONGRATS_RE = re.compile(
    r"(?im)^(?P<lead>[ \t>*\-•]*)(?P<marker>(?:congrats|congratulations|kudos|shout-?out|"
    r"well\s+done|welcome(?:\s+back)?)\s+to\s+)(?=[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*){0,3}\s*,\s*"
    r"\w+(?:ed|en)\b)"
)

# A list item's bullet or number in plain text ("- ", "* ", "• ", "2) "): layout, not content.
_BULLET_RE = re.compile(r"(?m)^[ \t]*(?:[-*•>]+|\d{1,2}[.)])[ \t]+(?=\S)")


# Markdown emphasis and code marks ("**Headcount:** 8", "_(owner: Dmitri)_", "`strict_tls`"),
# written in plain text as often as in Markdown: layout, not content. Only marks that open
# after a space or a line's start and close before one ("strict_tls" keeps its underscore).
_EMPHASIS_RE = re.compile(r"(?<![\w*_`])(\*\*|__|\*|_|`)(?=[^\s*_`])([^\n]*?[^\s*_`])\1(?![\w*_`])")


def _unemphasised(text: str) -> str:
    def blank(m: re.Match[str]) -> str:
        mark = " " * len(m.group(1))
        return mark + m.group(2) + mark

    return _EMPHASIS_RE.sub(blank, text)


# An email's header lines: addressing and a subject line, which the body states properly.
_HEADER_RE = re.compile(r"(?im)^[ \t]*(?:subject|from|to|cc|bcc|sent|reply-to)[ \t]*:[^\n]*$")


def capitalised_at(text: str, at: list[int]) -> str:
    """`text` with the letter at each offset in `at` capitalised: what follows a masked
    marker opens the sentence ("btw the Lisbon office closes on Friday"), and the small
    tagger misreads a lower-case opening after spaces ("closes" a plural noun)."""
    chars = list(text)
    for i in at:
        if i < len(chars) and chars[i].islower():
            chars[i] = chars[i].upper()
    return "".join(chars)


def mask_markers(text: str) -> str:
    """`text` with email header lines, line-opening discourse markers, list bullets and
    emphasis marks replaced by spaces (offsets unchanged), so the parser never reads "Update"
    as the subject of the sentence after it and a claim does not start with "- "."""
    headerless = _HEADER_RE.sub(lambda m: " " * len(m.group(0)), text)
    unbulleted = _unemphasised(_BULLET_RE.sub(lambda m: " " * len(m.group(0)), headerless))
    ungreeted = _GREETING_RE.sub(
        lambda m: m.group("lead") + " " * len(m.group("marker")), unbulleted
    )
    ungreeted = capitalised_at(
        _VOCATIVE_RE.sub(lambda m: m.group("lead") + " " * len(m.group("marker")), ungreeted),
        [m.end() for m in _VOCATIVE_RE.finditer(ungreeted)],
    )
    ungreeted = _CONGRATS_RE.sub(
        lambda m: m.group("lead") + " " * len(m.group("marker")), ungreeted
    )
    ungreeted = _NAME_DASH_RE.sub(
        lambda m: m.group("lead") + " " * len(m.group("marker")), ungreeted
    )
    ungreeted = _NICKNAME_RE.sub(_without_nickname, ungreeted)
    unframed = _WELCOME_RE.sub(_unpleased, _FRAME_RE.sub(_unframed, ungreeted))
    unmarked = unframed
    for _ in range(2):  # "Apologies, one fix: …": a marker may follow another
        unmarked = capitalised_at(
            _MARKER_RE.sub(lambda m: m.group("lead") + " " * len(m.group("marker")), unmarked),
            [m.end() for m in _MARKER_RE.finditer(unmarked)],
        )
    return _TAIL_RE.sub(lambda m: " " * len(m.group("tail")), unmarked)
