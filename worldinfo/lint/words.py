"""Word lists for the "fires on almost every message" check (WI003)."""

from __future__ import annotations

NAME_MACROS = frozenset({"{{user}}", "{{char}}", "<user>", "<bot>", "<char>"})
"""Keys that become a speaker name; with include-names every message starts with one."""

COMMON_WORDS = frozenset(
    """
    a about after all also am an and any are as at be because been but by can could did do
    does for from had has have he her here him his how i if in into is it its just like me
    more my no not now of on one or our out said say she so some than that the their them
    then there they this to too up us very was we were what when where which who why will
    with would yes you your ok okay oh well get got go going know see think want yeah
    """.split()  # noqa: SIM905
)
"""English function words and fillers that appear in nearly every chat message."""
