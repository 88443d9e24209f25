"""``Session``: the one stateful object. It carries a chat, its metadata (timed effects,
Author's Note), the extension prompts SillyTavern keeps between generations, forced
activations and activation sources, and does the chat preparation a front-end does
before each scan (``golden/FORMAT.md`` section 2 of the shared cases).
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from worldinfo import _js
from worldinfo._js import UNDEFINED, JSONValue
from worldinfo.engine.buffer import ScanData
from worldinfo.engine.fast.plan import ScanCache
from worldinfo.engine.gathering import BookSelection, sorted_entries
from worldinfo.engine.loop import check
from worldinfo.engine.output import RegexHook
from worldinfo.engine.regex_limits import DEFAULT_REGEX_LIMITS, RegexLimits, TimeoutMemo
from worldinfo.engine.state import CharacterIdentity, TokenCounter
from worldinfo.engine.timed_effects import entry_key
from worldinfo.macros import MacroContext, Macros, MacroSettings, StMacros, Substitute
from worldinfo.macros.binding import generation_context, state_of, write_back
from worldinfo.macros.context import system_clock
from worldinfo.result import ScanResult
from worldinfo.sources.base import ActivationSource, ScanContext
from worldinfo.trust import DEFAULT_TRUST, TrustPolicy
from worldinfo.types import GENERATION_TYPES, Book, Character, Message, Persona, Settings

AN_KEY = "2_floating_prompt"
QUIET_KEY = "QUIET_PROMPT"
PERSONA_KEY = "PERSONA_DESCRIPTION"
DEPTH_KEY = "DEPTH_PROMPT"
DEFAULT_SETTINGS = Settings()
DEFAULT_PERSONA = Persona()


@dataclass(slots=True)
class _Prompt:
    value: JSONValue
    scan: bool


class CountingRng:
    """Wraps a ``[0, 1)`` generator and counts the draws (``rng_calls``)."""

    def __init__(self, rng: Callable[[], float]) -> None:
        self._rng = rng
        self.calls = 0

    def __call__(self) -> float:
        self.calls += 1
        return self._rng()


class Session:
    """A chat being played: World Info state across generations.

    Args:
        books: every known book by name.
        settings: World Info settings.
        global_books: globally selected book names, in selection order.
        character: the active character (``None``: no character selected).
        persona: the user persona.
        chat: the chat so far, oldest first.
        chat_metadata: the chat's metadata (Author's Note keys, ``timedWorldInfo``, ...).
        chat_book: the chat-bound book (stored as ``chat_metadata["world_info"]``).
        max_context: the context size the budget applies to.
        allow_wi_scan: the Author's Note option that makes note and depth prompt scanned.
        fresh_chat_load: the first generation follows opening the chat.
        rng: the random stream (default: an unseeded ``random.Random``).
        count_tokens: the token counter.
        substitute: a macro substituter factory ``(user, char) -> Substitute``; default:
            SillyTavern's full evaluator (``StMacros``), rebuilt for every generation.
        macro_context: what the full evaluator reads besides the session's names, card,
            chat and metadata (clock, time zone, ``{{random}}`` source, UI state);
            default: the system clock in UTC and an unseeded ``random.Random``.
        macro_settings: the evaluator's limits and trust switch.
        global_variables: ``extension_settings.variables.global`` (kept in
            ``self.global_variables``).
        regex_hook: regex scripts for contents at assembly.
        sources: activation sources run at every scan.
        trust: what entries of untrusted origin may not do (``worldinfo.trust``).
        regex_limits: time allowed to regex keys, per test and per scan.
    """

    def __init__(
        self,
        *,
        books: Mapping[str, Book],
        settings: Settings = DEFAULT_SETTINGS,
        global_books: Sequence[str] = (),
        character: Character | None = None,
        persona: Persona = DEFAULT_PERSONA,
        chat: Iterable[Message] = (),
        chat_metadata: Mapping[str, JSONValue] | None = None,
        chat_book: str | None = None,
        max_context: int = 8192,
        allow_wi_scan: bool = False,
        fresh_chat_load: bool = False,
        rng: Callable[[], float] | None = None,
        count_tokens: TokenCounter = _js.st_token_estimate,
        substitute: Callable[[str, str], Substitute] | None = None,
        regex_hook: RegexHook | None = None,
        sources: Sequence[ActivationSource] = (),
        trust: TrustPolicy = DEFAULT_TRUST,
        regex_limits: RegexLimits = DEFAULT_REGEX_LIMITS,
        macro_context: MacroContext | None = None,
        macro_settings: MacroSettings | None = None,
        global_variables: Mapping[str, JSONValue] | None = None,
    ) -> None:
        self.books = dict(books)
        self.settings = settings
        self.global_books = list(global_books)
        self.character = character
        self.persona = persona
        self.chat: list[Message] = list(chat)
        self.chat_metadata: dict[str, JSONValue] = copy.deepcopy(dict(chat_metadata or {}))
        if chat_book:
            self.chat_metadata["world_info"] = chat_book
        self.max_context = max_context
        self.allow_wi_scan = allow_wi_scan
        self.rng = CountingRng(rng or random.Random().random)
        self.count_tokens = count_tokens
        self.trust = trust
        self._macro_writes: tuple[tuple[tuple[str, Book], ...], TrustPolicy, bool] | None = None
        # --- macros (full evaluator unless a factory is given) ---
        self.macro_context = macro_context or MacroContext(
            clock=system_clock, random=random.Random().random
        )
        self.macro_settings = macro_settings or MacroSettings()
        self.global_variables: dict[str, JSONValue] = dict(global_variables or {})
        self._outlets: Mapping[str, tuple[str, ...]] = {}
        self.macros: Substitute = (
            substitute(persona.name, character.name if character else "")
            if substitute is not None
            else self._bind_macros("normal")
        )
        self._custom_macros = substitute is not None
        self.regex_hook = regex_hook
        self.sources = list(sources)
        self.regex_limits = regex_limits
        self.regex_memo = TimeoutMemo()
        """Regex keys that timed out on a scan text: not run on that text again."""
        self._forced: dict[str, dict[str, JSONValue]] = {}
        self._prompts: dict[str, _Prompt] = {}
        self._should_add_note = False
        self.scan_cache: ScanCache | None = ScanCache()
        """Prepared entries and key index across scans; ``None``: the straightforward path."""
        if fresh_chat_load:
            self._set_floating_prompt()
        else:
            self._prompts[AN_KEY] = _Prompt("", scan=False)
            self._prompts[QUIET_KEY] = _Prompt("", scan=True)
            self._add_persona_description()

    # --- public -------------------------------------------------------------------------

    @property
    def selection(self) -> BookSelection:
        """The books bound globally, to the character, the chat and the persona."""
        char_names: list[str] = []
        if self.character is not None:
            if self.character.book:
                char_names.append(self.character.book)
            char_names.extend(self.character.extra_books)
        chat_name = self.chat_metadata.get("world_info")
        return BookSelection(
            global_names=tuple(self.global_books),
            character_names=tuple(char_names),
            chat_name=chat_name if isinstance(chat_name, str) else None,
            persona_name=self.persona.book,
        )

    def append(self, messages: Iterable[Message]) -> None:
        """Add messages to the chat (a finished user turn or reply)."""
        self.chat.extend(messages)
        for source in self.sources:
            source.messages_changed(self.chat)

    def force_activate(self, objects: Iterable[Mapping[str, JSONValue]]) -> None:
        """Register entry objects to force on in the next scan (``WORLDINFO_FORCE_ACTIVATE``)."""
        for obj in objects:
            if "world" in obj and "uid" in obj:
                self._forced[entry_key(obj)] = dict(obj)

    def force_activate_entries(self, keys: Iterable[tuple[str, JSONValue]]) -> None:
        """Force on book entries by ``(world, uid)``, as the vector extension does."""
        wanted = {f"{w}.{_js.to_string(u)}" for w, u in keys}
        plan = None
        if self.scan_cache is not None:
            plan = self.scan_cache.plan(self.books, self.selection, self.settings, trust=self.trust)
        if plan is not None:
            positions = sorted(p for key in wanted for p in plan.positions_of_key(key))
            for pos in positions:
                plan.ensure_hash(pos)
            entries: Sequence[Mapping[str, JSONValue]] = [plan.entries[p] for p in positions]
        else:
            entries = sorted_entries(
                self.books,
                self.selection,
                strategy=self.settings.character_strategy,
                trust=self.trust,
            )
        self.force_activate(e for e in entries if entry_key(e) in wanted)

    def generate(
        self,
        type: str = "normal",
        *,
        append: Iterable[Message] = (),
        dry_run: bool = False,
        quiet_prompt: str = "",
        force_activate: Iterable[tuple[str, JSONValue]] = (),
        trace: bool = False,
    ) -> ScanResult:
        """Prepare the chat as SillyTavern's ``Generate`` does, then scan.

        Args:
            type: the generation type (``normal``, ``continue``, ``impersonate``, ``swipe``,
                ``regenerate``, ``quiet``; other strings scan as ``normal``).
            append: messages added to the chat first.
            dry_run: a prompt preview (no timed effects, forced activations ignored).
            quiet_prompt: the quiet prompt text for ``quiet`` generations.
            force_activate: ``(world, uid)`` of entries forced on (ignored in dry runs).
            trace: record why each entry did or did not activate (``result.trace``).

        Returns:
            The scan result. ``self.chat_metadata["timedWorldInfo"]`` is updated.
        """
        self.append(append)
        self.rng.calls = 0
        self._begin_macros(type)
        quiet = self.macros(quiet_prompt) if type == "quiet" else ""
        self._prepare_chat(type, dry_run=dry_run)
        self._begin_macros(type)
        data = self._card_fields(type)
        self._prompts = {k: v for k, v in self._prompts.items() if not k.startswith(DEPTH_KEY)}
        self._prompts[DEPTH_KEY] = _Prompt(data.character_depth_prompt, scan=self.allow_wi_scan)
        if self.chat and isinstance(self.chat[0].mes, str):
            first = self.chat[0]
            self.chat[0] = Message(
                name=first.name,
                mes=self.macros(first.mes),
                is_user=first.is_user,
                is_system=first.is_system,
            )
        core = [m for m in self.chat if not m.is_system]
        if type == "swipe":
            core = core[:-1]
        force = list(force_activate)
        if force and not dry_run:
            self.force_activate_entries(force)
        self._set_floating_prompt()
        self._prompts[QUIET_KEY] = _Prompt(quiet, scan=True)
        result = self._scan(core, data, dry_run=dry_run, trace=trace)
        self._end_macros(result)
        self._prompts[QUIET_KEY] = _Prompt("", scan=True)
        self._add_persona_description()
        return result

    # --- preparation --------------------------------------------------------------------

    def _prepare_chat(self, type: str, *, dry_run: bool) -> None:
        if type in ("regenerate", "swipe", "quiet", "impersonate") or dry_run:
            if self.chat and self.chat[-1].is_user:
                return
            if type not in ("quiet", "swipe", "impersonate") and not dry_run and self.chat:
                self.chat.pop()
                for source in self.sources:
                    source.messages_changed(self.chat)

    def _card_fields(self, type: str) -> ScanData:
        field = self.macros.card_field if isinstance(self.macros, StMacros) else self.macros

        def prep(value: JSONValue) -> str:
            text = _js.trim(value) if isinstance(value, str) else ""
            return field(text).replace("\r", "") if text else ""

        c = self.character
        persona = prep(self.persona.description)
        trigger = type if type in GENERATION_TYPES else "normal"
        if c is None:
            return ScanData(persona_description=persona, trigger=trigger)
        scenario = self.chat_metadata.get("scenario")
        return ScanData(
            persona_description=persona,
            character_description=prep(c.description),
            character_personality=prep(c.personality),
            character_depth_prompt=prep(c.depth_prompt),
            scenario=prep(scenario if _js.truthy(scenario) else c.scenario),
            creator_notes=prep(c.creator_notes),
            trigger=trigger,
        )

    def _set_floating_prompt(self) -> None:
        """Author's Note due-ness (authors-note.js ``setFloatingPrompt``)."""
        if self.character is None:
            self._should_add_note = False
            return
        md = self.chat_metadata
        interval = md.get("note_interval", UNDEFINED)
        n: JSONValue = sum(1 for m in self.chat if m.is_user)
        if _js.strict_eq(interval, 1):
            n = 1
        if _js.le(n, 0) or _js.le(interval, 0):
            self._prompts[AN_KEY] = _Prompt("", scan=False)
            self._should_add_note = False
            return
        till = (
            _js.to_number(n) % _js.to_number(interval)
            if _js.ge(n, interval)
            else _js.to_number(interval) - _js.to_number(n)
        )
        due = till == 0
        self._should_add_note = due
        note = md.get("note_prompt", UNDEFINED)
        self._prompts[AN_KEY] = _Prompt(note if due else "", scan=self.allow_wi_scan)

    def _add_persona_description(self) -> None:
        p = self.persona
        self._prompts[PERSONA_KEY] = _Prompt("", scan=True)
        if not p.description or p.position == 9:
            return
        if p.position in (2, 3) and self._should_add_note:
            note = self._prompts.get(AN_KEY, _Prompt("", scan=False))
            text = _js.to_string(note.value) if _js.truthy(note.value) else ""
            joined = p.description + "\n" + text if p.position == 2 else text + "\n" + p.description
            self._prompts[AN_KEY] = _Prompt(joined, scan=note.scan)
        elif p.position == 4:
            self._prompts[PERSONA_KEY] = _Prompt(p.description, scan=True)

    # --- macros ---------------------------------------------------------------------------

    def _bind_macros(self, type: str) -> StMacros:
        macros = StMacros(
            generation_context(
                self.macro_context,
                persona=self.persona,
                character=self.character,
                chat=self.chat,
                chat_metadata=self.chat_metadata,
                generation_type=type,
                outlets=self._outlets,
                math_random=self.rng,
                max_context=self.max_context,
            ),
            state=state_of(self.chat_metadata, self.global_variables),
            settings=self._macro_settings(),
        )
        if macros.identity_without_braces:
            macros.prime()  # a generation always evaluates something: chat_id_hash is set
        return macros

    def _macro_settings(self) -> MacroSettings:
        """The evaluator's settings, without variable writes where the trust policy says so
        (decided once per set of books: books are immutable values)."""
        books = tuple(self.books.items())  # kept with the answer, compared by identity
        known = self._macro_writes
        if (
            known is None
            or known[1] is not self.trust
            or len(known[0]) != len(books)
            or any(n != m or a is not b for (n, a), (m, b) in zip(known[0], books, strict=True))
        ):
            writes = self.trust.macro_writes(self.books.values())
            known = self._macro_writes = (books, self.trust, writes)
        if known[2]:
            return self.macro_settings
        return replace(self.macro_settings, variable_writes=False, global_writes=False)

    def _begin_macros(self, type: str) -> None:
        """Rebuild the full evaluator on the current chat (after storing its variables)."""
        if self._custom_macros:
            return
        if isinstance(self.macros, StMacros):
            self._store_macro_state(self.macros)
        self.macros = self._bind_macros(type)

    def _store_macro_state(self, macros: StMacros) -> None:
        write_back(macros.state, self.chat_metadata)
        self.global_variables = dict(macros.state.globals)

    def _end_macros(self, result: ScanResult) -> None:
        """Write variables back as SillyTavern does; outlets feed the next ``{{outlet}}``."""
        if isinstance(self.macros, StMacros) and not self._custom_macros:
            self._store_macro_state(self.macros)
            if result.error is None:
                self._outlets = dict(result.outlets)

    # --- the scan -----------------------------------------------------------------------

    def _scan(
        self, core: Sequence[Message], data: ScanData, *, dry_run: bool, trace: bool = False
    ) -> ScanResult:
        names = _js.truthy(self.settings.include_names)
        chat_for_wi = [f"{m.name}: {_js.to_string(m.mes)}" if names else m.mes for m in core]
        chat_for_wi.reverse()
        context = ScanContext(
            chat=tuple(self.chat),
            chat_for_wi=tuple(chat_for_wi),
            books=tuple(self.books[n] for n in self.selection_names() if n in self.books),
            settings=self.settings,
            trigger=data.trigger,
            dry_run=dry_run,
        )
        forced: list[Mapping[str, JSONValue]] = []
        if not dry_run:
            for source in self.sources:
                forced.extend(source.force_activate(context))
        forced = list(self._forced.values()) + forced
        note = self._prompts.get(AN_KEY)
        result = check(
            self.books,
            chat_for_wi,
            selection=self.selection,
            settings=self.settings,
            max_context=self.max_context,
            rng=self.rng,
            scan_data=data,
            inject=[p.value for p in self._prompts.values() if p.scan],
            timed_world_info=self.chat_metadata.get("timedWorldInfo"),
            dry_run=dry_run,
            character=self._identity(),
            forced=forced,
            authors_note_text=(
                _js.to_string(note.value) if self._should_add_note and note else None
            ),
            count_tokens=self.count_tokens,
            substitute=self.macros,
            regex_hook=self.regex_hook,
            sources=self.sources,
            context=context,
            trace=trace,
            cache=self.scan_cache,
            trust=self.trust,
            regex_limits=self.regex_limits,
            regex_memo=self.regex_memo,
        )
        self.chat_metadata["timedWorldInfo"] = dict(result.timed_world_info)
        if result.forced_consumed:
            self._forced.clear()
        if not dry_run and result.error is None:
            for source in self.sources:
                source.scan_finished(context, result)
        return result

    def selection_names(self) -> list[str]:
        """Book names in play (before the skip rules), in gathering order."""
        s = self.selection
        names = list(s.global_names) + list(s.character_names)
        names += [n for n in (s.chat_name, s.persona_name) if n]
        return list(dict.fromkeys(names))

    def _identity(self) -> CharacterIdentity | None:
        c = self.character
        if c is None:
            return None
        return CharacterIdentity(file_name=c.file_name, avatar=c.avatar, tags=tuple(c.tags))


def names_only_macros(user: str, char: str) -> Substitute:
    """The ``{{user}}``/``{{char}}``-only substituter factory (what the World Info oracle
    models; pass it as ``substitute=`` to get that behaviour)."""
    return Macros(user=user, char=char)
