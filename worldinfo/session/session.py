"""``Session``: the one stateful object, a chat being played across generations.

``generate`` does the chat preparation a front-end does before each scan (``golden/FORMAT.md``
section 2 of the shared cases), runs the scan with the session's forced activations and
activation sources, and keeps the timed effects; what it holds is ``SessionState``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from worldinfo import _js
from worldinfo._js import JSONValue
from worldinfo.engine.buffer import ScanData
from worldinfo.engine.loop import check
from worldinfo.engine.source_hooks import ScanContext
from worldinfo.macros import Macros, Substitute
from worldinfo.result import ScanResult
from worldinfo.session.books import character_identity, entries_in_play
from worldinfo.session.preparation import (
    QUIET_KEY,
    card_fields,
    chat_for_wi,
    drops_last_message,
    scanned_messages,
    with_first_message_evaluated,
)
from worldinfo.session.state import SessionState
from worldinfo.types import Message, entry_key


class Session(SessionState):
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

    # --- public -------------------------------------------------------------------------

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
        entries = entries_in_play(
            self.books,
            self.selection,
            settings=self.settings,
            trust=self.trust,
            cache=self.scan_cache,
            keys=wanted,
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
        data = card_fields(
            self.macros,
            character=self.character,
            persona=self.persona,
            chat_metadata=self.chat_metadata,
            type=type,
        )
        self._prompts.set_depth_prompt(data.character_depth_prompt, scan=self.allow_wi_scan)
        with_first_message_evaluated(self.chat, self.macros)
        core = scanned_messages(self.chat, type)
        force = list(force_activate)
        if force and not dry_run:
            self.force_activate_entries(force)
        self._set_floating_prompt()
        self._prompts.set(QUIET_KEY, quiet, scan=True)
        result = self._scan(core, data, dry_run=dry_run, trace=trace)
        self._end_macros(result)
        self._prompts.set(QUIET_KEY, "", scan=True)
        self._prompts.add_persona_description(self.persona)
        return result

    # --- preparation --------------------------------------------------------------------

    def _prepare_chat(self, type: str, *, dry_run: bool) -> None:
        if drops_last_message(self.chat, type, dry_run=dry_run):
            self.chat.pop()
            for source in self.sources:
                source.messages_changed(self.chat)

    # --- the scan -----------------------------------------------------------------------

    def _scan(
        self, core: Sequence[Message], data: ScanData, *, dry_run: bool, trace: bool = False
    ) -> ScanResult:
        texts = chat_for_wi(core, include_names=self.settings.include_names)
        context = ScanContext(
            chat=tuple(self.chat),
            chat_for_wi=tuple(texts),
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
        result = check(
            self.books,
            texts,
            selection=self.selection,
            settings=self.settings,
            max_context=self.max_context,
            rng=self.rng,
            scan_data=data,
            inject=self._prompts.scanned(),
            timed_world_info=self.chat_metadata.get("timedWorldInfo"),
            dry_run=dry_run,
            character=character_identity(self.character),
            forced=forced,
            authors_note_text=self._prompts.authors_note(),
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


def names_only_macros(user: str, char: str) -> Substitute:
    """The ``{{user}}``/``{{char}}``-only substituter factory (what the World Info oracle
    models; pass it as ``substitute=`` to get that behaviour)."""
    return Macros(user=user, char=char)
