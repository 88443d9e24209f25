"""The replay as one self-contained HTML page: heat map, recursion graph, budget bars, table.

Nothing is fetched: CSS, script and data are inline, the budget bars are inline SVG, and
the heat map is drawn on a canvas from run-length encoded rows (the page's size grows with
the runs, its element count only with the entries). The per-entry table is plain HTML the
script sorts; the recursion graph of the chosen turn is drawn on demand.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence

from worldinfo.replay._assets import CSS, JS
from worldinfo.replay.stats import EntryStats, ReplayStats
from worldinfo.replay.turns import CUT_KINDS, HOWS, TurnRecord

HOW_CODES = {"key": "k", "recursion": "r", "constant": "c", "sticky": "s", "decorator": "d"}
CUT_CODES = {"budget": "B", "group": "G", "probability": "P", "cooldown": "C", "delay": "D"}
LEGEND = (
    ("--key", "key"),
    ("--rec", "recursion"),
    ("--con", "constant"),
    ("--sti", "sticky"),
    ("--dec", "@@activate"),
    ("--for", "activation source"),
    ("--cut", "cut: budget"),
    ("--grp", "cut: group"),
    ("--pro", "cut: probability"),
    ("--coo", "cut: cooldown"),
    ("--del", "cut: delay"),
)


def render_html(stats: ReplayStats, *, title: str = "worldinfo replay", turn: int = -1) -> str:
    """The report page.

    Args:
        stats: the replay's figures.
        title: the page title.
        turn: the turn whose recursion graph is shown first (``-1``: the turn with the most
            recursion links, else the last).

    Returns:
        The HTML text.
    """
    n = len(stats.turns)
    if not 0 <= turn < n:
        turn = _busiest(stats.turns)
    data = _data(stats, turn=turn)
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    payload = payload.replace("<", "\\u003c").replace("\u2028", "\\u2028")
    payload = payload.replace("\u2029", "\\u2029")
    e = html.escape
    legend = "".join(f'<span><i style="background:var({v})"></i>{e(t)}</span>' for v, t in LEGEND)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>{e(title)}</title><style>{CSS}</style></head>
<body>
<div id="errors" hidden></div>
<header><h1>{e(title)}</h1>{_facts(stats)}</header>
<section><h2>Heat map: turns &times; entries</h2>
<div class="legend">{legend}</div>
<div class="scroll"><canvas id="heat" width="1" height="1" role="img"
aria-label="{len(stats.entries)} entries by {n} turns"></canvas></div>
<div id="tip"></div></section>
<section><h2>Tokens per turn against the budget</h2>{_bars(stats.turns)}
<p id="bars-note"><small>{e(_bars_note(stats.turns))}</small></p></section>
<section><h2>Recursion graph: which entry woke which</h2>
<div class="controls"><label>turn <input id="turn" type="number" min="0" value="{turn}"></label>
<span id="graph-note"></span> <small>(or click a column of the heat map)</small></div>
<svg id="graph" xmlns="http://www.w3.org/2000/svg" height="40"></svg></section>
<section><h2>Entries</h2><p><small>Click a column to sort.</small></p>{_table(stats)}</section>
<script id="data" type="application/json">{payload}</script>
<script>{JS}</script>
</body></html>
"""


def _busiest(turns: Sequence[TurnRecord]) -> int:
    best, links = max(len(turns) - 1, 0), 0
    for t in turns:
        k = sum(len(f.sources) for f in t.fired)
        if k > links:
            best, links = t.index - turns[0].index, k
    return best


def _data(stats: ReplayStats, *, turn: int) -> dict[str, object]:
    index = {s.info.key: i for i, s in enumerate(stats.entries)}
    rows: list[list[str]] = [["."] * len(stats.turns) for _ in stats.entries]
    fired: list[list[object]] = []
    for col, t in enumerate(stats.turns):
        for key, kind in t.cut.items():
            rows[index[key]][col] = CUT_CODES[kind]
        items: list[object] = []
        for f in t.fired:
            code = HOW_CODES.get(f.how, "f")
            rows[index[f.key]][col] = code
            srcs = [index[s] for s in f.sources if s in index]
            items.append([index[f.key], f.loop, code, srcs, f.tokens])
        fired.append(items)
    return {
        "entries": [[s.info.key, _label(s)] for s in stats.entries],
        "turns": [
            [t.chat, t.message, t.type, t.tokens, t.budget, int(t.overflowed)] for t in stats.turns
        ],
        "rows": [_rle(r) for r in rows],
        "fired": fired,
        "turn": turn,
    }


def _rle(cells: Sequence[str]) -> str:
    out: list[str] = []
    prev, count = "", 0
    for c in cells:
        if c == prev:
            count += 1
            continue
        if count:
            out.append(f"{count}{prev}")
        prev, count = c, 1
    if count:
        out.append(f"{count}{prev}")
    return "".join(out)


def _label(s: EntryStats) -> str:
    title = " ".join(s.info.title.split())
    return f"{s.info.world}#{s.info.uid}" + (f" {title}" if title else "")


def _facts(stats: ReplayStats) -> str:
    n = len(stats.turns)
    budget = stats.turns[0].budget if stats.turns else 0
    facts = (
        ("turns", n),
        ("chats", len(stats.chats)),
        ("entries", len(stats.entries)),
        ("never fired", len(stats.never_fired)),
        ("always fired", len(stats.always_fired)),
        ("budget overflows", stats.overflows),
        ("budget (tokens)", budget),
    )
    items = "".join(
        f'<li><b id="fact-{k.split()[0]}-{k.split()[-1].strip("()")}">{v}</b>{k}</li>'
        for k, v in facts
    )
    return f'<ul class="facts">{items}</ul>'


def _bars(turns: Sequence[TurnRecord]) -> str:
    n = max(len(turns), 1)
    top = max([t.budget for t in turns] + [t.tokens for t in turns] + [1]) * 1.05
    h = 100.0
    under: list[str] = []
    over: list[str] = []
    for i, t in enumerate(turns):
        y = h - h * t.tokens / top
        (over if t.overflowed else under).append(f"M{i} {h}h0.85V{y:.1f}h-0.85z")
    budget_y = h - h * (turns[0].budget if turns else 0) / top
    return (
        f'<svg id="bars" viewBox="0 0 {n} {h:g}" preserveAspectRatio="none" role="img" '
        f'aria-label="tokens per turn"><path class="bar" d="{"".join(under)}"/>'
        f'<path class="bar over" d="{"".join(over)}"/>'
        f'<line class="budget" x1="0" x2="{n}" y1="{budget_y:.1f}" y2="{budget_y:.1f}" '
        f'vector-effect="non-scaling-stroke"/></svg>'
    )


def _bars_note(turns: Sequence[TurnRecord]) -> str:
    if not turns:
        return "no turns"
    top = max(turns, key=lambda t: t.tokens)
    over = sum(1 for t in turns if t.overflowed)
    return (
        f"Dashed line: the budget, {turns[0].budget} tokens. Highest: {top.tokens} tokens "
        f"(turn {top.index}). Red: the {over} turn(s) where the budget cut an entry."
    )


def _table(stats: ReplayStats) -> str:
    n = len(stats.turns)
    head = (
        ("entry", ""),
        ("fired", "n"),
        ("share", "n"),
        ("how", ""),
        ("woken by", ""),
        ("tokens", "n"),
        ("per firing", "n"),
        ("cut", "n"),
        ("cut by", ""),
    )
    ths = "".join(
        f'<th class="{c}" scope="col" data-key="{t.replace(" ", "-")}">{t}</th>' for t, c in head
    )
    body = [_row(s, n) for s in stats.entries]
    return (
        f'<table id="entries"><thead><tr>{ths}</tr></thead><tbody>{"".join(body)}</tbody></table>'
    )


def _row(s: EntryStats, turns: int) -> str:
    e = html.escape
    how = ", ".join(f"{h} {s.how[h]}" for h in HOWS if s.how.get(h))
    srcs = sorted(s.sources.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
    woken = ", ".join(f"{k} \u00d7{v}" for k, v in srcs)
    cuts = ", ".join(f"{c} {s.cuts[c]}" for c in CUT_KINDS if s.cuts.get(c))
    share = s.fired / turns if turns else 0.0
    cls = "disabled" if not s.info.enabled else "never" if s.fired == 0 else ""
    cells = (
        (_label(s), e(_label(s)), ""),
        (str(s.fired), str(s.fired), "n"),
        (f"{share:.4f}", f"{100 * share:.0f}%", "n"),
        (how, e(how), ""),
        (woken, e(woken), ""),
        (str(s.tokens), str(s.tokens), "n"),
        (f"{s.per_firing:.2f}", f"{s.per_firing:.1f}" if s.fired else "", "n"),
        (str(sum(s.cuts.values())), str(sum(s.cuts.values()) or ""), "n"),
        (cuts, e(cuts), ""),
    )
    tds = "".join(f'<td class="{c}" data-v="{e(v)}">{shown}</td>' for v, shown, c in cells)
    return f'<tr class="{cls}" data-entry="{e(s.info.key)}">{tds}</tr>'
