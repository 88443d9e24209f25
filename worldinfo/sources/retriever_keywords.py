"""Keyword selection (spec retriever.md F4-F9, errata E1), in exact arithmetic.

Word values are rationals: v = value_scale / (count + value_offset); the lore boost
(v + 1) / 2 and the reply factor keep them rational, so candidates are compared as
``Fraction`` values and keyword ties go to the earliest position, as the original's
slot-by-slot scan does (O15) and as float arithmetic would not (E1).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction

from worldinfo._record import record
from worldinfo.sources.retriever_settings import RetrieverSettings


@record
class Keyword:
    """One selected keyword.

    Args:
        word: the token.
        word_id: its id in the word table.
        score: the exact candidate score that selected it.
        count: the word's count when it was selected.
        from_reply: whether the winning occurrence is in the previous reply.
        lore: whether the lore boost applied.
    """

    word: str
    word_id: int
    score: Fraction
    count: int
    from_reply: bool
    lore: bool


def word_value(count: int, settings: RetrieverSettings) -> Fraction:
    """Return v(w) = value_scale / (count + value_offset) (F4)."""
    return Fraction(settings.value_scale, count + settings.value_offset)


def is_stopword(count: int, total: int, settings: RetrieverSettings) -> bool:
    """Return whether count / total > stopword_share, compared exactly (F5)."""
    share = settings.stopword_share
    return count * share.denominator > share.numerator * total


def stopword_limit(total: int, settings: RetrieverSettings) -> int:
    """Return the largest count that is not a stop-word at ``total`` tokens (F5).

    ``is_stopword(count, total, settings)`` is ``count > stopword_limit(total, settings)``
    for every integer count: count * d > n * total holds exactly when count exceeds
    floor(n * total / d) (d > 0). One integer to compare with many counts at once.
    """
    share = settings.stopword_share
    return share.numerator * total // share.denominator


def select_keywords(
    user_tokens: Sequence[str],
    reply_tokens: Sequence[str],
    *,
    lookup: Callable[[str], tuple[int, int] | None],
    total: int,
    lore: frozenset[str],
    settings: RetrieverSettings,
) -> tuple[Keyword, ...]:
    """Select up to ``slots`` keywords from the new message and the previous reply (F6-F8).

    Args:
        user_tokens: the new user message's tokens, in order.
        reply_tokens: the character's previous reply's tokens, in order.
        lookup: token -> (word id, current count), or ``None`` for an unknown word.
        total: the current token total (for the stop-word rule).
        lore: lore tokens (F9).
        settings: the constants.

    Returns:
        The keywords, best first (ties: earliest position; user before reply).
    """
    # A value is kept as an exact integer pair (num, den); Fraction objects are made only for
    # the chosen keywords. value = scale / (count + offset), boosted (v + 1) / 2, times the
    # reply factor: the same rationals as ``word_value``, compared by cross-multiplying.
    scale, offset, boost = settings.value_scale, settings.value_offset, settings.lore_boost
    rn, rd = settings.reply_factor.numerator, settings.reply_factor.denominator
    share = settings.stopword_share
    stop_at = share.numerator * total
    best: dict[str, tuple[int, int, int, int, int, bool, bool]] = {}
    position = 0
    for from_reply, tokens in ((False, user_tokens), (True, reply_tokens)):
        for tok in tokens:
            found = lookup(tok)
            if found is None:
                continue
            word_id, count = found
            if count <= 0 or count * share.denominator > stop_at:  # is_stopword
                continue
            den = count + offset
            boosted = boost and tok in lore
            num, den = (scale + den, 2 * den) if boosted else (scale, den)
            if from_reply:
                num, den = num * rn, den * rd
            pos = position
            position += 1
            prev = best.get(tok)
            # an earlier occurrence (smaller position) keeps its place unless strictly beaten
            if prev is not None and prev[0] * den >= num * prev[1]:
                continue
            best[tok] = (num, den, pos, word_id, count, from_reply, boosted)
    common = math.lcm(*(b[1] for b in best.values())) if best else 1
    order = sorted(best.items(), key=lambda kv: (-kv[1][0] * (common // kv[1][1]), kv[1][2]))
    chosen: list[Keyword] = []
    from_reply_taken = 0
    for tok, (num, den, _, word_id, count, from_reply, boosted) in order:
        if len(chosen) >= settings.slots:
            break
        if from_reply:
            if from_reply_taken >= settings.reply_cap:
                continue
            from_reply_taken += 1
        chosen.append(
            Keyword(
                word=tok,
                word_id=word_id,
                score=Fraction(num, den),
                count=count,
                from_reply=from_reply,
                lore=boosted,
            )
        )
    return tuple(chosen)
