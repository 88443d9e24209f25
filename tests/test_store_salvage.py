"""Damaged stores: detected on open, and `memory salvage` recovers every readable exchange."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from worldinfo.cli import main
from worldinfo.sources.store_errors import StoreCorruptError, StoreError
from worldinfo.sources.store_rebuild import salvage
from worldinfo.sources.store_sqlite import SqliteStore

N = 400
LEAF_TABLE, LEAF_INDEX, INTERIOR_TABLE = 13, 10, 5


def _build(tmp_path: Path) -> tuple[Path, list[tuple[str, str, str]]]:
    db = tmp_path / "m.db"
    with SqliteStore(db) as store:
        for i in range(N):
            words = " ".join(f"t{(i * 7 + k) % 211}" for k in range(12))
            store.ingest(f"question {i} {words}", f"reply {i} {words} w{i}", source_ref=f"c#{i}")
        rows = [(r.source_ref, r.user, r.reply) for r in store.records()]
    assert not Path(f"{db}-wal").exists()  # folded into the file on close
    return db, rows


def _pages(db: Path, name: str) -> list[tuple[int, int, int]]:
    """(page number, page type, cell count) of every page of a table's or index's b-tree."""
    con = sqlite3.connect(db)
    (root,) = con.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (name,)).fetchone()
    con.close()
    data = db.read_bytes()
    size = int.from_bytes(data[16:18], "big")
    out, stack = [], [root]
    while stack:
        page = stack.pop()
        base = (page - 1) * size
        off = base + (100 if page == 1 else 0)
        kind, cells = data[off], int.from_bytes(data[off + 3 : off + 5], "big")
        out.append((page, kind, cells))
        if kind in (2, INTERIOR_TABLE):
            stack.append(int.from_bytes(data[off + 8 : off + 12], "big"))
            for i in range(cells):
                ptr = int.from_bytes(data[off + 12 + 2 * i : off + 14 + 2 * i], "big")
                stack.append(int.from_bytes(data[base + ptr : base + ptr + 4], "big"))
    return sorted(out)


def _damage(db: Path, page: int, *, offset: int = 0, data: bytes | None = None) -> None:
    """Overwrite a page with garbage, or flip one bit at ``offset`` inside it."""
    size = int.from_bytes(db.read_bytes()[16:18], "big")
    with db.open("r+b") as f:
        f.seek((page - 1) * size + offset)
        if data is None:
            byte = f.read(1)[0]
            f.seek(-1, 1)
            f.write(bytes([byte ^ 0x10]))
        else:
            f.write(data)


def _middle_leaf(db: Path, name: str, kind: int) -> tuple[int, int]:
    leaves = [(p, c) for p, k, c in _pages(db, name) if k == kind]
    assert len(leaves) >= 2
    return leaves[len(leaves) // 2]


def test_a_garbage_records_page_is_detected_on_open(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, _ = _build(tmp_path)
    page, _cells = _middle_leaf(db, "records", LEAF_TABLE)
    _damage(db, page, data=b"\x5a" * 4096)
    with pytest.raises(StoreCorruptError, match="damaged store"):
        SqliteStore(db, readonly=True)
    assert main(["memory", "query", "--db", str(db), "question 7"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "memory salvage" in err


def test_a_damaged_index_page_is_found_by_the_quick_check(tmp_path: Path) -> None:
    db, rows = _build(tmp_path)
    page, _cells = _middle_leaf(db, "sqlite_autoindex_records_1", LEAF_INDEX)
    _damage(db, page, offset=200, data=b"\x00" * 1024)
    with SqliteStore(db, readonly=True, check=False) as store:  # the load alone misses it
        assert len(store) == N
    with pytest.raises(StoreCorruptError, match="quick_check|malformed|damaged"):
        SqliteStore(db, readonly=True)
    report = salvage(db, tmp_path / "new.db")
    assert (report.recovered, report.lost, report.skipped) == (N, 0, 0)
    with SqliteStore(tmp_path / "new.db", readonly=True) as store:
        assert [(r.source_ref, r.user, r.reply) for r in store.records()] == rows


def test_salvage_recovers_every_readable_exchange(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, rows = _build(tmp_path)
    page, cells = _middle_leaf(db, "records", LEAF_TABLE)
    _damage(db, page, data=bytes(4096))
    dst = tmp_path / "new.db"
    assert main(["memory", "salvage", str(db), "-o", str(dst), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["recovered"] == N - cells and got["lost"] >= cells
    with SqliteStore(dst, readonly=True) as store:
        kept = [(r.source_ref, r.user, r.reply) for r in store.records()]
    assert len(kept) == N - cells
    missing = [row for row in rows if row not in kept]
    assert len(missing) == cells
    assert kept == [row for row in rows if row not in missing]  # order kept
    lost_ids = sorted(int(ref.split("#")[1]) for ref, _, _ in missing)
    assert lost_ids == list(range(lost_ids[0], lost_ids[0] + cells))  # one page's run


def test_a_flipped_bit_in_the_word_table_leaves_every_exchange_salvageable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, rows = _build(tmp_path)
    want = SqliteStore(db, readonly=True)
    answer = want.retrieve("question 7 t49", top=3)
    want.close()
    page, _cells = _middle_leaf(db, "words", LEAF_TABLE)
    _damage(db, page, offset=3)  # the page's cell count
    with pytest.raises(StoreError):
        SqliteStore(db, readonly=True)
    dst = tmp_path / "new.db"
    assert main(["memory", "salvage", str(db), "-o", str(dst)]) == 0
    assert f"{N} exchanges recovered, up to 0 lost" in capsys.readouterr().out
    with SqliteStore(dst, readonly=True) as store:
        assert [(r.source_ref, r.user, r.reply) for r in store.records()] == rows
        again = store.retrieve("question 7 t49", top=3)
    assert again.block == answer.block and again.keywords == answer.keywords


def test_salvage_refuses_to_overwrite_and_reports_unreadable_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, _ = _build(tmp_path)
    other = tmp_path / "other.db"
    other.write_bytes(b"x")
    assert main(["memory", "salvage", str(db), "-o", str(other)]) == 1
    assert "already exists" in capsys.readouterr().err and other.read_bytes() == b"x"
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database at all" * 300)
    assert main(["memory", "salvage", str(junk), "-o", str(tmp_path / "out.db")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "out.db").exists()


def test_salvage_reads_the_leaves_under_a_damaged_root_without_reviving_deleted_records(
    tmp_path: Path,
) -> None:
    db, rows = _build(tmp_path)
    with SqliteStore(db) as store:
        for i in range(100, 200):
            assert store.delete(f"c#{i}")
    gone = {f"c#{i}" for i in range(100, 200)}
    con = sqlite3.connect(db)
    (root,) = con.execute("SELECT rootpage FROM sqlite_master WHERE name = 'records'").fetchone()
    con.close()
    assert (root, INTERIOR_TABLE) in {(p, k) for p, k, _ in _pages(db, "records")}
    _damage(db, root, data=b"\xff" * 64)  # the page header and cell pointers
    with pytest.raises(StoreCorruptError):
        SqliteStore(db, readonly=True)
    report = salvage(db, tmp_path / "new.db")
    # every live record comes back; the deleted ids are unreadable too, hence "up to 100 lost"
    assert (report.recovered, report.lost) == (N - 100, 100), report
    assert any("from their pages" in note for note in report.notes)
    with SqliteStore(tmp_path / "new.db", readonly=True) as store:
        kept = [(r.source_ref, r.user, r.reply) for r in store.records()]
    assert kept == [row for row in rows if row[0] not in gone]


def test_scan_with_a_damaged_memory_store_prints_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, _ = _build(tmp_path)
    page, _cells = _middle_leaf(db, "records", LEAF_TABLE)
    _damage(db, page, data=bytes(4096))
    book = Path(__file__).resolve().parent / "data" / "eldoria" / "Eldoria.json"
    assert main(["scan", str(book), "--memory", str(db)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "damaged store" in err and "memory salvage" in err
