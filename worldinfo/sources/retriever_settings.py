"""Every constant of the chat-history retriever as a named setting (spec retriever.md, F1-F19).

Defaults are the original's values (Z-Waif ``based_rag.py`` at v1.13, spec section 7 O20 and
section 12), so a retriever built with ``RetrieverSettings()`` agrees with the original on the
inputs of spec F21; the bug fixes (floor, cap, stop-words at query time ...) are not settings.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields, replace
from fractions import Fraction
from typing import Literal

from worldinfo._js import JSONValue
from worldinfo._record import record
from worldinfo.sources import rankings

DEFAULT_HEADER = (
    "[System M]; This is from your past memory, relevant to what is currently happening;\n"
)
DEFAULT_FOOTER = "\n \n; This is the end of the memory!;"

Punctuation = Literal["ascii", "unicode"]
Ranking = rankings.Ranking  # defined apart so the CLI's help needs not import this module
RANKINGS = rankings.RANKINGS


def exact(value: float | str | Fraction) -> Fraction:
    """Return ``value`` as an exact fraction (``0.97`` -> 97/100, not the binary float)."""
    if isinstance(value, Fraction):
        return value
    if isinstance(value, float):
        return Fraction(repr(value))
    return Fraction(value)


@record
class RetrieverSettings:
    """The retriever's named constants.

    Args:
        exclusion: the newest E records are never retrieved (F10); the original's
            ``history_demarc`` 20. Set it to the number of exchanges sent in the prompt.
        slots: maximum number of keywords (F7).
        reply_factor: multiplier of a previous-reply candidate's score (F6).
        reply_cap: at most this many keywords from the previous reply (F8).
        stopword_share: a word is a stop-word iff count / total > share, strictly (F5).
        length_divisor: the per-half length penalty is kept-tokens / divisor (F13).
        half_floor: each half's score is floored at this value (F13), in score units.
        score_floor: a record is a candidate only if its score is > this value (F14).
        value_offset: word value = value_scale / (count + value_offset) (F4).
        value_scale: see ``value_offset``.
        lore_boost: whether a keyword that is a lore token is pulled to (v + 1) / 2 (F6, F9).
        window_before: stored records shown before the pick (F11).
        window_after: stored records shown after the pick (F11).
        smoothing: the F12 variant (off by default; the original computed it and never used
            it, O23). Which records are candidates does not change: own score > score_floor
            and at least one keyword (F14, applied to the own score only). Candidates are
            then ranked by own + previous + next live record's own score (each neighbour's
            halves floored as usual, whether or not it is eligible; a missing neighbour adds
            0); ties go to the most recent record.
        punctuation: ``"ascii"`` = ``string.punctuation`` only (the original's set, F2);
            ``"unicode"`` additionally removes Unicode punctuation (F2 improved mode).
        ranking: ``"zwaif"`` (the corrected Z-Waif algorithm, F1-F21, the default) or
            ``"ranked"`` (BM25 with Z-Waif's query-side weights and dates, ``ranked.py``);
            the settings below up to ``dates`` apply to the ranked mode only.
        bm25_k1: BM25's term-frequency saturation, 1.2 (Robertson and Zaragoza 2009).
        bm25_b: BM25's length normalisation, 0.75 (same source).
        neighbour_weight: weight of the two neighbours' own scores in a candidate's rank;
            1 = Z-Waif's ``central_score`` (own + previous + next, unweighted, O23), the
            default; 0 = own score only.
        stemming: map tokens to Porter stems, steps 1a-1c and 5a (``ranked_terms``).
        dates: a question naming a day or span searches the exchanges of that span only.
        header: first line(s) of the memory block (O25).
        footer: end of the memory block (O25).
        user_label: label of the user lines (the original writes the literal ``User``).
        character_name: label of the reply lines (B20: a default instead of a crash).
    """

    exclusion: int = 20
    slots: int = 6
    reply_factor: Fraction = Fraction(97, 100)
    reply_cap: int = 2
    stopword_share: Fraction = Fraction(937, 1_000_000)
    length_divisor: int = 115
    half_floor: int = -1
    score_floor: int = 0
    value_offset: int = 19
    value_scale: int = 20
    lore_boost: bool = True
    window_before: int = 1
    window_after: int = 1
    smoothing: bool = False
    punctuation: Punctuation = "ascii"
    ranking: Ranking = "zwaif"
    bm25_k1: float = 1.2
    bm25_b: float = 0.75
    neighbour_weight: float = 1.0
    stemming: bool = True
    dates: bool = True
    header: str = DEFAULT_HEADER
    footer: str = DEFAULT_FOOTER
    user_label: str = "User"
    character_name: str = "Character"

    def __post_init__(self) -> None:
        for name in ("reply_factor", "stopword_share"):
            object.__setattr__(self, name, exact(getattr(self, name)))
        if self.length_divisor <= 0:
            raise ValueError("length_divisor must be positive")
        if self.value_offset <= -1:
            raise ValueError("value_offset must be >= 0 so every count has a value")
        if self.punctuation not in ("ascii", "unicode"):
            raise ValueError(f"punctuation must be 'ascii' or 'unicode', not {self.punctuation!r}")
        if self.ranking not in RANKINGS:
            raise ValueError(f"ranking must be one of {RANKINGS}, not {self.ranking!r}")

    @property
    def half_floor_units(self) -> int:
        """The per-half floor in S115 units (score x ``length_divisor``)."""
        return self.half_floor * self.length_divisor

    @property
    def score_floor_units(self) -> int:
        """The candidate floor in S115 units."""
        return self.score_floor * self.length_divisor

    @classmethod
    def from_config(cls, config: Mapping[str, JSONValue], **overrides: object) -> RetrieverSettings:
        """Build settings from a mapping of field names (a case file's ``config``).

        Args:
            config: field names to values; unknown names are ignored.
            overrides: applied after ``config``.

        Returns:
            The settings.
        """
        names = {f.name for f in fields(cls)}
        values = {k: v for k, v in config.items() if k in names}
        return replace(cls(), **{**values, **overrides})
