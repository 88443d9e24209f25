"""``check``: one World Info evaluation, SillyTavern's ``checkWorldInfo`` (R28-R72).

Pure: everything upstream reads from page globals is a parameter, and the only state
that outlives a call is returned (the new ``timedWorldInfo``). Phases are named after
the specification's sections.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from worldinfo import _js
from worldinfo._collector import collector_paused
from worldinfo._js import JSError, JSONValue
from worldinfo.engine.budget import compute_budget
from worldinfo.engine.buffer import ScanBuffer, ScanData
from worldinfo.engine.fast.cache import ScanCache
from worldinfo.engine.fast.plan import Plan
from worldinfo.engine.fast.records import distinct_keys
from worldinfo.engine.fast.scan import FastScan, dynamic_positions, hash_positions
from worldinfo.engine.gathering import (
    BookSelection,
    load_lore,
    select_books,
    sort_lore,
)
from worldinfo.engine.handout import activated_facts, hand_out
from worldinfo.engine.output import RegexHook, assemble, authors_note
from worldinfo.engine.regex_limits import DEFAULT_REGEX_LIMITS, RegexClock, RegexLimits, TimeoutMemo
from worldinfo.engine.scan_loop import init_delay_levels, run_loops
from worldinfo.engine.source_hooks import ScanContext
from worldinfo.engine.state import CharacterIdentity, TokenCounter, WorkingState
from worldinfo.engine.timed_effects import TYPES as TIMED_TYPES
from worldinfo.engine.timed_effects import TimedEffects, entry_key, normalise
from worldinfo.macros import Macros, Substitute, identity_without_braces
from worldinfo.result import ScanResult
from worldinfo.trace import Trace
from worldinfo.trust import DEFAULT_TRUST, TrustPolicy, untrusted_keys
from worldinfo.types import Book, RawEntry, Settings

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from worldinfo.engine.source_protocol import ActivationSource

NO_SCAN_DATA = ScanData()
DEFAULT_MACROS = Macros()


def check(
    books: Mapping[str, Book],
    chat: Sequence[str],
    *,
    selection: BookSelection,
    settings: Settings,
    max_context: JSONValue,
    rng: Callable[[], float],
    scan_data: ScanData = NO_SCAN_DATA,
    inject: Sequence[JSONValue] = (),
    timed_world_info: JSONValue = None,
    dry_run: bool = False,
    character: CharacterIdentity | None = None,
    forced: Sequence[Mapping[str, JSONValue]] = (),
    authors_note_text: str | None = None,
    count_tokens: TokenCounter = _js.st_token_estimate,
    substitute: Substitute = DEFAULT_MACROS,
    regex_hook: RegexHook | None = None,
    sources: Sequence[ActivationSource] = (),
    context: ScanContext | None = None,
    trace: bool = False,
    cache: ScanCache | None = None,
    trust: TrustPolicy = DEFAULT_TRUST,
    regex_limits: RegexLimits = DEFAULT_REGEX_LIMITS,
    regex_memo: TimeoutMemo | None = None,
) -> ScanResult:
    """Evaluate World Info once, as SillyTavern 1.15.0 does.

    Args:
        books: every known book by name.
        chat: the scanned messages, newest first (``"Name: text"`` when names are included).
        selection: which books are bound globally, to the character, chat and persona.
        settings: the World Info settings.
        max_context: the context size the budget percentage applies to.
        rng: ``Math.random`` replacement, one shared stream.
        scan_data: card/persona text for the ``match*`` flags, and the generation trigger.
        inject: scanned extension prompts (raw; substituted here), in key order.
        timed_world_info: ``chat_metadata.timedWorldInfo`` before the scan.
        dry_run: a prompt preview: no timed effects are checked or written.
        character: the active character for name/tag filters (``None``: no character).
        forced: entry objects forced on from outside (each with ``world`` and ``uid``).
        authors_note_text: the Author's Note when it is due this generation, else ``None``.
        count_tokens: the token counter (default: SillyTavern's fallback estimate).
        substitute: the macro substituter.
        regex_hook: regex scripts applied to contents at assembly.
        sources: activation sources whose hooks run during the scan.
        context: what sources see of the scan (built by ``Session``).
        trace: also record why each entry did or did not activate (``result.trace``).
        cache: prepared entries and key index kept across scans (``Session`` owns one);
            ``None`` runs the straightforward path (every entry, every key, every pass).
            Not used with ``sources`` (they may edit the loaded lore).
        trust: what entries of untrusted origin may not do (``worldinfo.trust``).
        regex_limits: time allowed to regex keys, per test and per scan.
        regex_memo: regex keys that timed out on a scan text before (``Session`` keeps
            one); they are not run on that text again, and new timeouts are added.

    Returns:
        The scan result; ``result.error`` is set where SillyTavern would have thrown.
    """
    timed_state = normalise(timed_world_info)
    try:
        with collector_paused():  # see ``_collector``: a scan makes containers, no cycles
            return _check(
                books,
                chat,
                selection=selection,
                settings=settings,
                max_context=max_context,
                rng=rng,
                scan_data=scan_data,
                inject=inject,
                timed_state=timed_state,
                dry_run=dry_run,
                character=character,
                forced=forced,
                authors_note_text=authors_note_text,
                count_tokens=count_tokens,
                substitute=substitute,
                regex_hook=regex_hook,
                sources=sources,
                context=context,
                trace=trace,
                cache=cache if not sources else None,
                trust=trust,
                regex_limits=regex_limits,
                regex_memo=regex_memo,
            )
    except JSError as exc:
        return ScanResult(error=str(exc), timed_world_info=timed_state, forced_consumed=False)


def _prepare_timed(
    plan: Plan, timed_state: dict[str, JSONValue], *, chat_length: int, dry_run: bool
) -> None:
    """Index by hash the delayed entries (compared by hash, R64) and build the entries of
    the records together (``find_record`` reads them; one by one they cost 3x). A record
    whose hash an entry was given before (``Plan.hashed_at``: built then) needs nothing
    when the plan's keys are distinct (``records.distinct_keys``: learnt here once, from a
    set of them, a third cheaper than the key index of every entry)."""
    for p in plan.delay_positions:
        if _js.lt(chat_length, plan.entries[p].get("delay")):
            plan.index_position(p)
    if not dry_run:
        tables = [timed_state[t] for t in TIMED_TYPES]  # dicts (``normalise``)
        recorded = [r for records in tables if isinstance(records, dict) for r in records.items()]
        known = plan.hashed_at
        hinted = [
            isinstance(r, dict) and type(h := r.get("hash")) is int and h in known
            for _, r in recorded
        ]
        if any(hinted) and distinct_keys(plan, learn=True):  # no key index for those
            recorded = [kr for kr, hit in zip(recorded, hinted, strict=True) if not hit]
        if recorded:
            plan.entries.make_all([p for k, _ in recorded for p in plan.positions_of_key(k)])


def _check(
    books: Mapping[str, Book],
    chat: Sequence[str],
    *,
    selection: BookSelection,
    settings: Settings,
    max_context: JSONValue,
    rng: Callable[[], float],
    scan_data: ScanData,
    inject: Sequence[JSONValue],
    timed_state: dict[str, JSONValue],
    dry_run: bool,
    character: CharacterIdentity | None,
    forced: Sequence[Mapping[str, JSONValue]],
    authors_note_text: str | None,
    count_tokens: TokenCounter,
    substitute: Substitute,
    regex_hook: RegexHook | None,
    sources: Sequence[ActivationSource],
    context: ScanContext | None,
    trace: bool,
    cache: ScanCache | None,
    trust: TrustPolicy,
    regex_limits: RegexLimits,
    regex_memo: TimeoutMemo | None,
) -> ScanResult:
    # R28 prelude: buffer, inject buffer, budget, entries, timed effects.
    regex = RegexClock(regex_limits)
    buffer = ScanBuffer(chat, settings, scan_data, regex=regex, memo=regex_memo, trust=trust)
    for value in inject:
        text = substitute(value)
        if text:
            buffer.inject.append(text)
    budget = compute_budget(settings, max_context)
    plan: Plan | None = None
    if cache is not None:
        buffer.outcomes = cache.regex_outcomes
        plan = cache.plan(books, selection, settings, trust=trust, regex=regex)
        if plan is not None and trace:
            plan.ensure_all_hashes()  # the traced scan works on copies of every entry
        elif plan is not None:
            _prepare_timed(plan, timed_state, chat_length=len(chat), dry_run=dry_run)
        entries = [dict(e) for e in plan.entries] if plan is not None and trace else []
        buffer.untrusted = plan.untrusted if plan is not None else frozenset()
    else:
        selected = select_books(selection, books)
        buffer.untrusted = untrusted_keys(books.get(n) for n in selected.all_names())
        lore = load_lore(selected, books, trust=trust)
        if lore is not None and sources and context is not None:
            for source in sources:
                source.entries_loaded(context, lore)
        entries = sort_lore(lore, strategy=settings.character_strategy) if lore else []
    lazy = plan.entries if plan is not None and not trace else None  # built as they are read
    timed = TimedEffects(timed_state, len(chat), entries if lazy is None else lazy, dry_run)
    if plan is not None:
        timed.find_hash = plan.find_record
        timed.delay_positions = plan.delay_positions
    timed.check()
    if lazy is not None:
        entries = lazy.snapshot(complete=not identity_without_braces(substitute))
    if not entries:
        return ScanResult(
            timed_world_info=timed_state, forced_consumed=False, trace=Trace() if trace else None
        )

    registry: dict[str, RawEntry] = {}
    for obj in forced:
        if "world" in obj and "uid" in obj:
            registry[entry_key(obj)] = dict(obj)
    shared = plan is not None and not trace
    scan = WorkingState(
        settings=settings,
        buffer=buffer,
        timed=timed,
        entries=entries,
        index=dict(plan.index)
        if plan is not None and shared
        else {id(e): i for i, e in enumerate(entries)},
        rng=rng,
        count_tokens=count_tokens,
        substitute=substitute,
        character=character,
        forced=registry,
        budget=budget,
        trigger=scan_data.trigger,
        trace=Trace() if trace else None,
    )
    if plan is not None:
        scan.fast = FastScan(
            plan,
            buffer,
            dynamic_positions(plan, timed.active, registry),
            hash_positions(plan, timed.active.get("sticky", [])),
        )
        scan.fast.skip = not trace and identity_without_braces(substitute)
        if shared:
            scan.fast.shared = plan.entries
            scan.fast.shared_index = plan.index
            scan.fast.own = (scan.entries, scan.index)
    init_delay_levels(scan, plan)
    loops = run_loops(scan, sources)

    activated = list(scan.activated.values())
    facts = activated_facts(scan, activated)
    finish = hand_out(scan, activated, facts)
    recent = scan.fast.plan.facts.recent.assembled if scan.fast is not None else None
    placed = list(scan.fast.placed.values()) if scan.fast is not None else []
    if len(placed) != len(activated):
        recent = None
    pieces = assemble(
        activated, regex_hook=regex_hook, facts=facts, recent=recent, positions=placed
    )
    an_prompt = None
    if authors_note_text is not None:
        an_prompt = authors_note(authors_note_text, top=pieces.an_top, bottom=pieces.an_bottom)
    if facts is not None:  # only an entry with a truthy sticky or cooldown writes a record
        timed.write([e for e, f in zip(activated, facts, strict=True) if f is None or f.may_record])
    else:
        timed.write(activated)
    buffer.finish()
    return ScanResult(
        _activated=tuple(activated),
        _finish=finish,
        before="\n".join(pieces.before),
        after="\n".join(pieces.after),
        depth=pieces.depth_groups(),
        an_before=tuple(pieces.an_top),
        an_after=tuple(pieces.an_bottom),
        examples=tuple(pieces.examples),
        outlets=pieces.outlet_map(),
        an_prompt=an_prompt,
        timed_world_info=timed_state,
        scan_loops=loops,
        trace=scan.trace,
        warnings=tuple(buffer.warnings),
    )
