"""Time and peak memory of refusing hostile inputs (issue 11). Run by hand, not in CI.

    .venv/bin/python bench/hostile_inputs.py [--only NAME]... [--keep DIR]

Each input is written to a temporary directory, then read by a fresh ``worldinfo validate``
(and, for the array, ``worldinfo scan --chat``, which parses chats with ``_js.parse_json``)
in its own process (the inputs are written by another child, so that the peak RSS each
row shows is the reader's own). The table shows the wall time of that process, its peak RSS (from
``os.wait4``), its exit status and the problem line it printed. ``baseline`` is the same
interpreter importing the CLI and exiting, so its time and memory are the floor of every
other row; ``accepted-20k`` is a 20,000-entry book and ``accepted-widest`` an entry with a million
members (the most memory the default bounds let one JSON text cost) for comparison.
"""

from __future__ import annotations

import argparse
import base64
import itertools
import os
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path

MiB = 1024 * 1024
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunk(ctype: bytes, data: bytes) -> bytes:
    crc = zlib.crc32(data, zlib.crc32(ctype))
    return struct.pack(">I4s", len(data), ctype) + data + struct.pack(">I", crc)


def array_of_empty_objects(size: int = 60 * MiB) -> bytes:
    """``[{},{},...]`` of ``size`` bytes: 20 million objects at 60 MiB."""
    n = (size - 1) // 3
    return b"[" + b"{}," * (n - 1) + b"{}]"


def book_with_entries(n: int = 1_000_000) -> bytes:
    """A SillyTavern world with ``n`` small entries."""
    body = b",".join(b'"%d":{"key":["k"],"content":"c"}' % i for i in range(n))
    return b'{"entries":{' + body + b"}}"


def png_card(n: int = 1_550_000) -> bytes:
    """A V2 card PNG whose ``chara`` chunk holds a book of ``n`` entries (~60 MiB)."""
    entries = b",".join([b'{"keys":["k"],"content":"c"}'] * n)
    card = (
        b'{"spec":"chara_card_v2","spec_version":"2.0","data":{"name":"X","character_book":'
        b'{"entries":[' + entries + b"]}}}"
    )
    ihdr = _chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 6, 0, 0, 0))
    idat = _chunk(b"IDAT", zlib.compress(b"\x00" * 5))
    text = _chunk(b"tEXt", b"chara\x00" + base64.b64encode(card))
    return PNG_SIGNATURE + ihdr + idat + text + _chunk(b"IEND", b"")


def accepted_book(n: int = 20_000) -> bytes:
    """A world of ``n`` entries with SillyTavern's usual fields (inside the default limits)."""
    entry = (
        b'"%d":{"uid":%d,"key":["alpha %d","beta"],"keysecondary":[],"comment":"entry %d",'
        b'"content":"Some lore text about the topic, a sentence or two long.","constant":false,'
        b'"selective":true,"order":100,"position":0,"disable":false,"probability":100,'
        b'"useProbability":true,"depth":4,"group":"","characterFilter":{"names":[],"tags":[],'
        b'"isExclude":false},"triggers":[],"extensions":{}}'
    )
    return b'{"entries":{' + b",".join(entry % (i, i, i, i) for i in range(n)) + b"}}"


def widest_accepted(n: int = 999_990) -> bytes:
    """An entry with ``n`` distinct members: the costliest shape the default bounds admit."""
    names = (
        "".join(p) for p in itertools.product("abcdefghijklmnopqrstuvwxyz0123456789", repeat=5)
    )
    body = b",".join(b'"%s":0' % k.encode() for k in itertools.islice(names, n))
    return b'{"entries":{"0":{"key":["k"],' + body + b"}}}"


CASES: dict[str, tuple[str, Callable[[], bytes]]] = {
    "array-60MiB": ("array.json", array_of_empty_objects),
    "book-1e6": ("book.json", book_with_entries),
    "card-png-1.55M": ("card.png", png_card),
    "accepted-20k": ("accepted.json", accepted_book),
    "accepted-widest": ("widest.json", widest_accepted),
}


def run(argv: list[str]) -> tuple[float, float, int, str]:
    """Run ``argv``; return (wall seconds, peak RSS MB, exit status, first problem line)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = proc.stdout.read() if proc.stdout else b""
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    lines = [ln.strip() for ln in out.decode("utf-8", "replace").splitlines() if ln.strip()]
    problem = next((ln for ln in lines if ln.startswith(("$", "error"))), lines[0] if lines else "")
    return seconds, usage.ru_maxrss / 1024, proc.returncode, problem


def main() -> int:
    """Write the inputs, run each in its own process, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", choices=sorted(CASES), default=[])
    parser.add_argument("--keep", metavar="DIR", help="write the inputs here (kept)")
    parser.add_argument("--write", nargs=2, metavar=("NAME", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.write:  # in a child, so that this process stays small (RSS is inherited by fork)
        Path(args.write[1]).write_bytes(CASES[args.write[0]][1]())
        return 0
    cli = [sys.executable, "-m", "worldinfo"]
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(args.keep or tmp)
        where.mkdir(parents=True, exist_ok=True)
        rows = [("baseline", 0, run([*cli, "--help"]))]
        for name in args.only or list(CASES):
            file_name = CASES[name][0]
            path = where / file_name
            subprocess.run([sys.executable, __file__, "--write", name, str(path)], check=True)
            size = path.stat().st_size
            rows.append((f"{name} validate", size, run([*cli, "validate", str(path)])))
            if name == "array-60MiB":
                book = where / "empty-world.json"
                book.write_text('{"entries": {}}', encoding="utf-8")
                scan = [*cli, "scan", str(book), "--chat", str(path)]
                rows.append((f"{name} scan --chat", size, run(scan)))
    print(f"{'input':30} {'MiB':>6} {'seconds':>8} {'peak MB':>8} {'exit':>4}  message")
    for name, size, (seconds, peak, code, message) in rows:
        print(f"{name:30} {size / MiB:6.1f} {seconds:8.2f} {peak:8.0f} {code:4}  {message[:150]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
