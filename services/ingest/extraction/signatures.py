"""Who wrote an email, and the post its signature gives them.

An email says "I" for its writer and names them only at the end ("Best,\nNadia Rahman\nHead of
Partnerships, Tessel Labs") or in its "From:" line. Without that, "I joined Tessel in March"
had no one to be about. `author` reads the writer's name from the document's text (the
pipeline passes it with every prose passage, so first-person words resolve to it, as a
conversation turn's speaker does); `signature` finds the signature block itself, whose post
line ("Head of Partnerships, Tessel Labs", "CFO | Kavli Partners", "Senior Engineer at Orbit
Systems", or the post and the organisation on two lines) says where the writer works. Read
off the lines' shape: a closing word on its own line, a name of one to four capitalised words
that opens with a common given name, then at most two short lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from services.ingest.extraction.base import ExtractedClaim, ExtractionInput, Span
from shared.entities.given_names import is_given_name
from shared.text.units import person_shaped

__all__ = ["Signature", "author", "passage_writer", "signature", "signature_claim"]

# "Thanks for everything," and "Thank you for your patience!" close an email as "Thanks," does.
_THANKS_FOR = r"(?:\s+for\s+[\w'’]+(?:\s+[\w'’]+){0,4})"
_CLOSING_WORDS = (
    r"best(?:\s+regards|\s+wishes)?|kind\s+regards|warm(?:est)?\s+regards|regards|many\s+thanks|"
    rf"thanks(?:\s+(?:again|all|everyone|so\s+much|a\s+lot)|{_THANKS_FOR})?|"
    rf"thank\s+you(?:\s+(?:all|so\s+much)|{_THANKS_FOR})?|cheers|sincerely|yours\s+sincerely|"
    r"all\s+the\s+best|all\s+best|warmly|speak\s+soon|talk\s+soon|take\s+care|with\s+thanks"
)
_CLOSING_RE = re.compile(rf"(?im)^[ \t]*(?:{_CLOSING_WORDS})[ \t]*[,.!]?[ \t]*\n")
_INLINE_RE = re.compile(
    rf"(?im)^[ \t]*(?:{_CLOSING_WORDS})[ \t]*[,.!][ \t]*"
    r"(?P<name>[A-Z][\w'’-]+(?:[ \t]+[A-Z][\w'’.-]+){0,3})[ \t]*\.?[ \t]*$"
)
_NAME_RE = re.compile(r"(?P<name>[A-Z][\w'’-]+(?:[ \t]+[A-Z][\w'’.-]+){0,3})[ \t]*$")
_FROM_RE = re.compile(
    r"(?im)^[ \t]*from[ \t]*:[ \t]*\"?(?P<name>[A-Z][\w'’-]+(?:[ \t]+[A-Z][\w'’.-]+){0,3})\"?"
    r"[ \t]*(?:<[^>\n]*>)?[ \t]*$"
)
# "Head of Partnerships, Tessel Labs", "CFO | Kavli Partners", "Senior Engineer at Orbit".
_POST_SPLIT_RE = re.compile(r"\s*(?:,|\||·|•|–|—|\s-\s|\s@\s|\sat\s)\s*")
_POST_WORDS_RE = re.compile(
    r"(?i)\b(?:head|director|manager|lead|engineer|founder|co-founder|ceo|cto|cfo|coo|cmo|"
    r"cpo|ciso|vp|vice\s+president|president|partner|analyst|designer|officer|counsel|"
    r"consultant|scientist|architect|specialist|coordinator|recruiter|associate|chair|"
    r"principal|developer|executive|advisor|adviser|editor|researcher|administrator|"
    r"accountant|controller|strategist|marketer|intern)s?\b"
)
_MAX_POST_CHARS = 80


@dataclass(frozen=True)
class Signature:
    """The writer's name, where it and the block start, and the organisation the post names
    (None when the block gives no post at an organisation) with that line's span."""

    name: str
    start: int
    name_start: int
    organisation: str | None = None
    post_start: int = 0
    post_end: int = 0


def author(text: str) -> str | None:
    """The writer an email's text names: its signature's name, else its "From:" line's."""
    found = signature(text)
    if found is not None:
        return found.name
    header = _FROM_RE.search(text)
    if header is not None and is_given_name(header.group("name").split()[0].lower()):
        return header.group("name")
    return None


# "On Mon, 3 Mar 2026 at 09:12, Omar Haddad <omar@…> wrote:", "Omar Haddad wrote:": whose words
# the quoted lines after it are.
_WROTE_RE = re.compile(
    r"(?im)^[ \t>]*(?:on\b[^\n]*?,[ \t]*)?\"?(?P<name>[A-Z][\w'’-]+(?:[ \t]+[A-Z][\w'’.-]+){0,3})"
    r"\"?[ \t]*(?:<[^>\n]*>)?[ \t]*wrote[ \t]*:[ \t]*$"
)


def passage_writer(text: str, start: int, passage: str, writer: str | None) -> str | None:
    """Whom "I" means in the passage of an email at `start`: the email's writer, but in lines
    quoted from an earlier message ("> I'm moving to our Berlin office in May") the one its
    "… wrote:" line names, or no one: a reply's quote is not its writer's word."""
    lines = [line for line in passage.splitlines() if line.strip()]
    said = [line for line in lines if not _WROTE_RE.match(line)]
    if not said or not all(line.lstrip().startswith(">") for line in said):
        return writer
    quoted = list(_WROTE_RE.finditer(text, 0, start + len(passage)))
    return quoted[-1].group("name") if quoted else None


def signature(text: str) -> Signature | None:
    """The last signature block in `text`: a closing line, then the name line, then posts;
    or the closing and the name on one line ("Best, Aoife", "Thanks, Priya")."""
    inline = list(_INLINE_RE.finditer(text))
    if inline and not text[inline[-1].end() :].strip():
        last = inline[-1]
        if _person(last.group("name")):
            return Signature(last.group("name"), last.start(), last.start("name"))
    closings = list(_CLOSING_RE.finditer(text))
    if not closings:
        return _unclosed(text)
    closing = closings[-1]
    lines = _lines_after(text, closing.end())
    if not lines or len(lines) > 3:
        return None
    name_start, name_line = lines[0]
    name_part, same_line_post = _split_name_line(name_line)
    match = _NAME_RE.fullmatch(name_part)
    if match is None or not _person(match.group("name")):
        return None
    name = match.group("name")
    found = Signature(name, closing.start(), name_start + name_line.index(name))
    post_lines = lines[1:]
    if same_line_post is not None:  # "Tom | Head of Sales, Fenwick"
        post_lines = [(name_start + name_line.index(same_line_post), same_line_post), *post_lines]
    organisation = _organisation([line for _, line in post_lines])
    if organisation is None:
        return found
    post_start = post_lines[0][0]
    post_end = post_lines[-1][0] + len(post_lines[-1][1].rstrip())
    return Signature(name, found.start, found.name_start, organisation, post_start, post_end)


# What parts a name from the post on one signature line: "Tom | Head of Sales, Fenwick".
_NAME_SPLIT_RE = re.compile(r"\s*(?:\||·|•|–|—|\s-\s)\s*")


def _split_name_line(line: str) -> tuple[str, str | None]:
    """A signature's name line as (name, the post after it on the same line, if any)."""
    parts = _NAME_SPLIT_RE.split(line.strip(), maxsplit=1)
    if len(parts) == 2 and _POST_WORDS_RE.search(parts[1]):
        return parts[0], parts[1]
    return line.strip(), None


def _unclosed(text: str) -> Signature | None:
    """A block with no closing word that ends an email: a person's full name on its own line,
    then a post at an organisation ("Rosa Delgado" / "Partnerships Lead, Fenwick") or a post
    alone ("Jo Adebayo" / "Support Engineer"); or a reply's last line, a given name alone
    after a blank line ("… Reopening the ticket.\n\nRafael")."""
    lines = _lines_after(text, 0)[-3:]
    for at in range(len(lines) - 1):
        name_start, name_line = lines[at]
        match = _NAME_RE.fullmatch(name_line)
        if match is None or not person_shaped(name_line):
            continue
        if not is_given_name(name_line.split()[0].lower()):
            continue
        posts = lines[at + 1 :]
        organisation = _organisation([line for _, line in posts])
        if organisation is None:
            post = posts[0][1]
            if len(posts) == 1 and _POST_WORDS_RE.search(post) and _after_a_body(text, lines, at):
                return Signature(name_line, name_start, name_start)
            return None
        post_end = posts[-1][0] + len(posts[-1][1])
        return Signature(name_line, name_start, name_start, organisation, posts[0][0], post_end)
    return _signed_off(text, lines)


_BLANK_LINE_BEFORE = re.compile(r"\n[ \t]*\n[ \t]*$")


def _signed_off(text: str, lines: list[tuple[int, str]]) -> Signature | None:
    """A reply signed with the writer's name alone on its last line, after a blank line and
    a body of at least one sentence: "Rafael", "Jo", "Priya Raman"."""
    if len(lines) < 2:
        return None
    start, last = lines[-1]
    words = last.split()
    if not 1 <= len(words) <= 3 or _NAME_RE.fullmatch(last) is None:
        return None
    if not is_given_name(words[0].lower()) or (len(words) > 1 and not person_shaped(last)):
        return None
    if not _after_a_body(text, lines, len(lines) - 1):
        return None
    return Signature(last, start, start)


def _after_a_body(text: str, lines: list[tuple[int, str]], at: int) -> bool:
    """Whether line `at` follows a blank line after a sentence: a sign-off, not a list of
    names ("Attendees:\nDana Kim\nProduct Manager") or a heading's next line."""
    start = lines[at][0]
    return (
        at > 0
        and _BLANK_LINE_BEFORE.search(text[:start]) is not None
        and re.search(r"[.!?]\s*$", lines[at - 1][1]) is not None
    )


# Who a closing may be signed by that is no person: "Thanks, Team", "Cheers, Everyone".
_GROUPS = frozenset({"team", "all", "everyone", "everybody", "folks", "both", "guys", "y'all"})
_UNITS = frozenset({"team", "group", "crew", "squad", "department", "desk", "office", "hq"})


def _person(name: str) -> bool:
    """A name signed after a closing word: a known given name, or any capitalised name that
    is no group ("Best, Aoife": the given-name list cannot know every name)."""
    words = [w.lower() for w in name.split()]
    if words[0] in ("the", "a", "an", "your", "our") or set(words) & _UNITS:
        return False  # "The Platform Team", "Support Desk"
    return is_given_name(words[0]) or (words[0] not in _GROUPS and not name.isupper())


def _lines_after(text: str, start: int) -> list[tuple[int, str]]:
    """The non-empty lines from `start` to the text's end, with their offsets."""
    found = []
    position = start
    for line in text[start:].split("\n"):
        if line.strip():
            found.append((position + len(line) - len(line.lstrip()), line.strip()))
        position += len(line) + 1
    return found


def _organisation(posts: list[str]) -> str | None:
    """The organisation a signature's post lines name, if one of them is a post."""
    if not posts or any(len(p) > _MAX_POST_CHARS for p in posts):
        return None
    if len(posts) == 2 and _POST_WORDS_RE.search(posts[0]) and _named(posts[1]):
        return posts[1]  # "VP Sales" / "Northwind Logistics"
    parts = _POST_SPLIT_RE.split(posts[0], maxsplit=1)
    if len(parts) == 2 and _POST_WORDS_RE.search(parts[0]) and _named(parts[1]):
        return parts[1].strip()
    return None


def _named(text: str) -> bool:
    """Capitalised words only: the name of an organisation, not a phrase."""
    words = text.strip().split()
    return 0 < len(words) <= 5 and all(w[:1].isupper() or w in ("&", "of", "and") for w in words)


def signature_claim(inp: ExtractionInput, signed: Signature) -> ExtractedClaim:
    """ "Nadia Rahman works for Tessel Labs", spanning the post line(s), said when the email
    was; the name is evidence too."""
    assert signed.organisation is not None
    post = inp.text[signed.post_start : signed.post_end]
    start = inp.base_offset + signed.post_start
    name_start = inp.base_offset + signed.name_start
    return ExtractedClaim(
        claim_text=f"{signed.name}: {' '.join(post.split())}",
        char_start=start,
        char_end=start + len(post),
        source_span=post,
        evidence_spans=(
            Span(start, start + len(post), post),
            Span(name_start, name_start + len(signed.name), signed.name),
        ),
        claim_valid_from=None,
        claim_valid_until=None,
        claim_valid_precision="unknown",
        claim_valid_kind=None,
        is_attributed=False,
        holder=None,
        polarity="positive",
        subject_text=signed.name,
        predicate_text="work for",
        object_text=signed.organisation,
    )
