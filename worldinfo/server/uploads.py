"""A worker's uploads: importing, storing and resolving books and cards by content hash.

An upload is imported once per worker (``prepared.UploadCache``, by the bytes' SHA-256 and
trust), so every session over the same bytes shares the same ``Book`` objects, and with them
the warm scan caches keyed on those objects.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Mapping

from worldinfo import importers
from worldinfo._js import JSONValue
from worldinfo.importers import Imported, Limits
from worldinfo.server.prepared import UploadCache, UploadKey
from worldinfo.server.sessions import Loaded
from worldinfo.server.storage import BookRow, Storage
from worldinfo.types import Book


def new_id(prefix: str) -> str:
    """An unguessable id (128 random bits)."""
    return f"{prefix}_{secrets.token_urlsafe(16)}"


class Uploads:
    """Uploads over one storage backend, with this worker's cache of their imports.

    Args:
        storage: the backend.
        limits: the importers' bounds for uploads.
    """

    def __init__(self, storage: Storage, *, limits: Limits) -> None:
        self.storage = storage
        self.limits = limits
        self.uploads = UploadCache()

    def import_upload(self, owner: str, raw: bytes, *, name: str, trust: bool) -> BookRow:
        """Import an upload (the importers' bounds and trust policy apply) and store it.

        Raises:
            LorebookImportError: naming the upload, its format and every problem.
        """
        imported = importers.load(raw, name=name, trust=trust, limits=self.limits)
        sha = hashlib.sha256(raw).hexdigest()
        self.uploads.get((sha, trust), lambda: imported)
        row = BookRow(
            id=new_id("bk"), owner=owner, sha256=sha, name=name, format=imported.format,
            trust=trust, raw=raw,
        )  # fmt: skip
        self.storage.put_book(row)
        return row

    def imported(self, row: BookRow) -> Imported:
        """The upload as imported, from this worker's cache when it has it (a row read
        without its bytes is read again with them on a miss)."""

        def load() -> Imported:
            raw = row.raw or self.storage.book(row.owner, row.id).raw
            return importers.load(raw, name=row.name, trust=row.trust, limits=self.limits)

        return self.uploads.get((row.sha256, row.trust), load)

    def resolve(self, owner: str, config: Mapping[str, JSONValue]) -> Loaded:
        """Books and character of a session config (raises ``NotFound``)."""
        books: dict[str, Book] = {}
        names: list[str] = []
        key: list[UploadKey] = []
        kept: list[Imported] = []
        ids = config.get("books") or []
        assert isinstance(ids, list)
        for book_id in ids:
            row = self.storage.book(owner, str(book_id), raw=False)
            key.append((row.sha256, row.trust))
            kept.append(self.imported(row))
            for book in kept[-1].books:
                books[book.name] = book
                names.append(book.name)
        character = None
        card = config.get("character")
        if isinstance(card, str):
            row = self.storage.book(owner, card, raw=False)
            key.append((row.sha256, row.trust))
            kept.append(self.imported(row))
            character = kept[-1].character
            for book in kept[-1].books:
                books[book.name] = book
        return Loaded(
            books=books, global_names=names, character=character, key=tuple(key),
            imported=tuple(kept),
        )  # fmt: skip
