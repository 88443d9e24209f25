"""A stored exchange as the retriever holds it (F1), and the typecode of its id arrays."""

from __future__ import annotations

from array import array
from datetime import datetime

from worldinfo._record import record

IDS = "I"
"""Typecode of the id arrays (token ids, postings): 4-byte unsigned. Storing an item into an
array of a signed code goes through the argument parser; an unsigned one converts directly,
about 4x cheaper per append, ``fromlist`` item or ``array(code, iterable)`` item. Ids are
never negative; the bytes of a value below 2**31 are those of the signed code."""


@record
class Record:
    """One ingested exchange (F1).

    Args:
        id: monotonic, never reused.
        source_ref: the exchange's identity in its chat (idempotency and undo key).
        user: the user's text.
        reply: the character's reply.
        user_tokens: word ids of the user text, in order, repeats kept.
        reply_tokens: word ids of the reply, likewise.
        timestamp: when the exchange happened (``timestamps.parse_timestamp``), if known.
    """

    id: int
    source_ref: str
    user: str
    reply: str
    user_tokens: array[int]
    reply_tokens: array[int]
    timestamp: datetime | None = None
