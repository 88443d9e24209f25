"""``SessionState``: what a ``Session`` holds across generations, and how it binds them.

The books and their selection, settings, character, persona, the chat and its metadata,
the shared random stream (``CountingRng``), the extension prompts and the macro evaluator
bound to each generation (variables stored back into the chat metadata; the trust policy
decides once per set of books whether macros may write them). ``Session`` (``session.py``)
adds what a generation does.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping, Sequence

from worldinfo import _js
from worldinfo._js import JSONValue
from worldinfo._lazy import system_random
from worldinfo._record import replace
from worldinfo.engine.fast.cache import ScanCache
from worldinfo.engine.gathering import BookSelection
from worldinfo.engine.output import RegexHook
from worldinfo.engine.regex_limits import DEFAULT_REGEX_LIMITS, RegexLimits, TimeoutMemo
from worldinfo.engine.state import TokenCounter
from worldinfo.macros import MacroContext, MacroSettings, StMacros, Substitute
from worldinfo.macros.binding import generation_context, state_of, write_back
from worldinfo.macros.context import system_clock
from worldinfo.result import ScanResult
from worldinfo.session.books import book_selection, names_in_play
from worldinfo.session.preparation import AN_KEY, QUIET_KEY, ExtensionPrompts
from worldinfo.trust import DEFAULT_TRUST, TrustPolicy
from worldinfo.types import Book, Character, Message, Persona, Settings

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from worldinfo.engine.source_protocol import ActivationSource

DEFAULT_SETTINGS = Settings()
DEFAULT_PERSONA = Persona()


class CountingRng:
    """Wraps a ``[0, 1)`` generator and counts the draws (``rng_calls``)."""

    def __init__(self, rng: Callable[[], float]) -> None:
        self._rng = rng
        self.calls = 0

    def __call__(self) -> float:
        self.calls += 1
        return self._rng()


class SessionState:
    """What a chat being played holds across generations, and its macro binding.

    Its constructor takes ``Session``'s arguments (documented there).
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
        self.rng = CountingRng(rng or system_random())
        self.count_tokens = count_tokens
        self.trust = trust
        self._macro_writes: tuple[tuple[tuple[str, Book], ...], TrustPolicy, bool] | None = None
        # --- macros (full evaluator unless a factory is given) ---
        self.macro_context = macro_context or MacroContext(
            clock=system_clock, random=system_random()
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
        self._prompts = ExtensionPrompts()
        self.scan_cache: ScanCache | None = ScanCache()
        """Prepared entries and key index across scans; ``None``: the straightforward path."""
        if fresh_chat_load:
            self._set_floating_prompt()
        else:
            self._prompts.set(AN_KEY, "", scan=False)
            self._prompts.set(QUIET_KEY, "", scan=True)
            self._prompts.add_persona_description(self.persona)

    # --- the books in play --------------------------------------------------------------

    @property
    def selection(self) -> BookSelection:
        """The books bound globally, to the character, the chat and the persona."""
        return book_selection(
            self.global_books,
            character=self.character,
            chat_metadata=self.chat_metadata,
            persona=self.persona,
        )

    def selection_names(self) -> list[str]:
        """Book names in play (before the skip rules), in gathering order."""
        return names_in_play(self.selection)

    # --- preparation ----------------------------------------------------------------------

    def _set_floating_prompt(self) -> None:
        self._prompts.set_floating_prompt(
            character=self.character,
            chat=self.chat,
            chat_metadata=self.chat_metadata,
            allow_wi_scan=self.allow_wi_scan,
        )

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
