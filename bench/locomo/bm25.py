"""Plain BM25 over LoCoMo turns: the lexical reference point for the retrieval benchmark."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

from bench.locomo.corpus import Question, Session, Turn

__all__ = ["STOP_WORDS", "BM25Index", "rank_turns", "tokenize", "turn_index_text"]

# Kept small on purpose: the README's reference numbers come from a "small stop list"; this one
# (articles, conjunctions, common prepositions, be-forms, pronouns, wh-words) reproduces them.
_STOP_LIST = """
a an the and or of to in on at for with is are was were be been it its this that
i you he she we they my your his her our their me him us them do does did
what when where who which how why
"""
STOP_WORDS = frozenset(_STOP_LIST.split())
_TOKEN = re.compile(r"[a-z0-9]+")


def tokenize(text: str) -> list[str]:
    """Lower-cased alphanumeric runs, stop words removed."""
    return [token for token in _TOKEN.findall(text.lower()) if token not in STOP_WORDS]


def turn_index_text(turn: Turn) -> str:
    """What a turn is indexed as: speaker and words, so "What did Caroline ..." can match."""
    return f"{turn.speaker}: {turn.text}"


class BM25Index:
    """Okapi BM25 over a small collection, as a dense document-by-term weight matrix."""

    def __init__(self, documents: Sequence[str], k1: float = 1.2, b: float = 0.75) -> None:
        tokenized = [tokenize(document) for document in documents]
        self._vocabulary: dict[str, int] = {}
        rows: list[int] = []
        cols: list[int] = []
        for row, tokens in enumerate(tokenized):
            for token in tokens:
                rows.append(row)
                cols.append(self._vocabulary.setdefault(token, len(self._vocabulary)))
        n_docs = len(documents)
        tf = np.zeros((n_docs, len(self._vocabulary)), dtype=np.float64)
        np.add.at(tf, (np.asarray(rows, dtype=np.intp), np.asarray(cols, dtype=np.intp)), 1.0)
        lengths = tf.sum(axis=1)
        mean_length = float(lengths.mean()) if n_docs and lengths.any() else 1.0
        df = (tf > 0).sum(axis=0)
        # Robertson-Sparck Jones IDF, clipped at 0 so terms in most turns cannot count against one.
        idf = np.maximum(np.log((n_docs - df + 0.5) / (df + 0.5)), 0.0)
        norm = k1 * (1.0 - b + b * lengths / mean_length)
        self._weights: npt.NDArray[np.float64] = idf * tf * (k1 + 1.0) / (tf + norm[:, None])

    def __len__(self) -> int:
        return int(self._weights.shape[0])

    def scores(self, query: str) -> npt.NDArray[np.float64]:
        """One score per document; each distinct query term counts once."""
        columns = list(
            dict.fromkeys(self._vocabulary[t] for t in tokenize(query) if t in self._vocabulary)
        )
        if not columns:
            return np.zeros(len(self), dtype=np.float64)
        return np.asarray(self._weights[:, columns].sum(axis=1), dtype=np.float64)

    def rank(self, query: str) -> list[int]:
        """All document positions, best first; ties keep document order."""
        return [int(i) for i in np.argsort(-self.scores(query), kind="stable")]


def rank_turns(
    sessions: Iterable[Session], questions: Iterable[Question], k1: float = 1.2, b: float = 0.75
) -> dict[str, list[str]]:
    """Rank every turn of each question's conversation; one index per conversation."""
    turns_by_conv: dict[int, list[Turn]] = {}
    for session in sessions:
        turns_by_conv.setdefault(session.conv_index, []).extend(session.turns)
    indexes: dict[int, BM25Index] = {}
    rankings: dict[str, list[str]] = {}
    for question in questions:
        turns = turns_by_conv.get(question.conv_index, [])
        index = indexes.get(question.conv_index)
        if index is None:
            index = BM25Index([turn_index_text(turn) for turn in turns], k1=k1, b=b)
            indexes[question.conv_index] = index
        rankings[question.question_id] = [turns[i].turn_id for i in index.rank(question.question)]
    return rankings
