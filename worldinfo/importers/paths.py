"""A file's label, name and stem as ``pathlib`` gives them, without importing it for the
paths it would leave as written (``pathlib`` imports ``urllib.parse``: start-up time)."""

from __future__ import annotations

import os


def _plain_posix(text: object) -> bool:
    """Is ``text`` a POSIX path that ``pathlib`` leaves as written (no empty or ``.`` part)?"""
    return (
        os.name == "posix"
        and isinstance(text, str)
        and text not in ("", ".")
        and "//" not in text
        and "/./" not in text
        and not text.startswith("./")
        and not text.endswith(("/", "/."))
    )


def path_text(src: str | os.PathLike[str]) -> tuple[str, str]:
    """``str(Path(src))`` and ``Path(src).name``; ``pathlib`` (and ``urllib.parse``, which it
    imports: start-up time) only for a path it would rewrite."""
    if _plain_posix(src):
        assert isinstance(src, str)
        return src, src.rpartition("/")[2]
    from pathlib import Path

    path = Path(src)
    return str(path), path.name


def stem(file_name: str) -> str:
    """``PurePath(file_name).stem`` (its name when it has no suffix)."""
    if not _plain_posix(file_name) or "/" in file_name:
        from pathlib import PurePath

        return PurePath(file_name).stem
    dot = file_name.rfind(".")
    return file_name[:dot] if 0 < dot < len(file_name) - 1 else file_name
