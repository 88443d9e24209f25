"""Terms of the ranked memory mode: a fixed English stop list and a light stemmer.

The ranked mode indexes the same tokens as the Z-Waif mode (``retriever_tokenize``) and maps
each distinct token to a *term* when it scores: remaining Unicode punctuation is removed (so
``don’t`` and ``don't`` agree whatever the store's punctuation mode), function words are
dropped, and the rest is stemmed.

Stop-words are a fixed list of English function words (pronouns, determiners, auxiliaries,
prepositions, conjunctions, wh-words and their apostrophe-less contractions), the same kind
of list as NLTK's English one, written out here. Unlike the Z-Waif rule (a word is a
stop-word once its share of all tokens passes 0.000937), a fixed list does not depend on the
history's size, so it cannot swallow the topic words of a short history; BM25's IDF already
discounts words that are frequent in this history.

The stemmer is steps 1a-1c and 5a of Porter's algorithm (M. F. Porter, "An algorithm for
suffix stripping", Program 14(3), 1980): plurals, ``-ed``/``-ing`` and a final ``e``
(``recommended`` and ``recommend`` meet, ``painting`` and ``paint``, ``movies`` and
``movie``), not the derivational steps 2-4, which conflate too much for short chat texts
(``general``/``generous``). Words of one or two letters and words with characters outside
a-z are left as they are, and so are words longer than ``MAX_STEM`` letters (no English
word is; it bounds the time a hostile token can take).
"""

from __future__ import annotations

import unicodedata

_STOP_TEXT = """
a about above after again against all am an and any are arent as at be because been
before being below between both but by can cant could couldnt did didnt do does doesnt
doing dont down during each few for from further had hadnt has hasnt have havent having
he hed hell hes her here heres hers herself him himself his how hows i id ill im ive if
in into is isnt it its itself lets me more most mustnt my myself no nor not of off on
once only or other ought our ours ourselves out over own same shant she shed shell shes
should shouldnt so some such than that thats the their theirs them themselves then there
theres these they theyd theyll theyre theyve this those through to too under until up
very was wasnt we wed well were weve werent what whats when whens where wheres which
while who whos whom why whys will with wont would wouldnt you youd youll youre youve
your yours yourself yourselves just also s t d ll m re ve
"""
STOP_WORDS = frozenset(_STOP_TEXT.split())
"""English function words, written without apostrophes as the tokenizer leaves them."""

_VOWELS = frozenset("aeiou")
MAX_STEM = 50
"""Longer tokens are not stemmed."""


def _consonant(word: str, i: int) -> bool:
    ch = word[i]
    if ch in _VOWELS:
        return False
    if ch == "y":
        return i == 0 or not _consonant(word, i - 1)
    return True


def _measure(stem: str) -> int:
    """Porter's m: the number of vowel-consonant sequences in ``stem``."""
    m = 0
    prev_vowel = False
    for i in range(len(stem)):
        vowel = not _consonant(stem, i)
        if prev_vowel and not vowel:
            m += 1
        prev_vowel = vowel
    return m


def _has_vowel(stem: str) -> bool:
    return any(not _consonant(stem, i) for i in range(len(stem)))


def _double_consonant(word: str) -> bool:
    return len(word) >= 2 and word[-1] == word[-2] and _consonant(word, len(word) - 1)


def _cvc(word: str) -> bool:
    """Consonant-vowel-consonant ending, the last not w, x or y (Porter's *o)."""
    if len(word) < 3:
        return False
    n = len(word)
    return (
        _consonant(word, n - 3)
        and not _consonant(word, n - 2)
        and _consonant(word, n - 1)
        and word[-1] not in "wxy"
    )


def _step1b_fix(stem: str) -> str:
    if stem.endswith(("at", "bl", "iz")):
        return stem + "e"
    if _double_consonant(stem) and stem[-1] not in "lsz":
        return stem[:-1]
    if _measure(stem) == 1 and _cvc(stem):
        return stem + "e"
    return stem


def stem(word: str) -> str:
    """Return the Porter steps 1a-1c + 5a stem of a lower-case word (see the module docstring).

    Args:
        word: one token.

    Returns:
        The stem (the word itself if it is short or not plain a-z).
    """
    if not 2 < len(word) <= MAX_STEM or not word.isascii() or not word.isalpha():
        return word
    w = word
    if w.endswith(("sses", "ies")):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith("ss"):
        w = w[:-1]
    if w.endswith("eed"):
        if _measure(w[:-3]) > 0:
            w = w[:-1]
    else:
        for suffix in ("ed", "ing"):
            if w.endswith(suffix) and _has_vowel(w[: -len(suffix)]):
                w = _step1b_fix(w[: -len(suffix)])
                break
    if w.endswith("y") and _has_vowel(w[:-1]):
        w = w[:-1] + "i"
    if w.endswith("e"):
        m = _measure(w[:-1])
        if m > 1 or (m == 1 and not _cvc(w[:-1])):
            w = w[:-1]
    return w


def term(token: str) -> str:
    """Return the ranked-mode term of a token, or ``""`` for a stop-word.

    Args:
        token: a token of ``retriever_tokenize.tokenize`` (casefolded, no spaces).

    Returns:
        The stem of the token without any Unicode punctuation; ``""`` if nothing is left
        or the token is a function word.
    """
    if not token.isascii():
        token = "".join(c for c in token if not unicodedata.category(c).startswith("P"))
    if not token or token in STOP_WORDS:
        return ""
    return stem(token)
