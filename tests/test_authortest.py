"""Activation tests for authors: the table format, its schema, the runner, CLI and pytest plugin."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from worldinfo.authortest import AuthorTestError, Importer, UnreadableFile, load, run, run_file
from worldinfo.cli import main
from worldinfo.cli._conventions import cannot_read
from worldinfo.importers import analyse
from worldinfo.importers.schema import validator

IMPORTER = Importer(analyse=analyse, validator=validator)

DATA = Path(__file__).parent / "data"
ELDORIA_TABLE = DATA / "eldoria.witest.json"
ELDORIA = (DATA / "eldoria" / "Eldoria.json").resolve()


def write(tmp_path: Path, cases: list[dict[str, Any]], **top: Any) -> Path:
    doc = {"books": [str(ELDORIA)], "cases": cases, **top}
    path = tmp_path / "t.witest.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_eldoria_table_is_green() -> None:
    results = run_file(ELDORIA_TABLE, importer=IMPORTER)
    assert len(results) == 15
    assert [r.case.name for r in results if not r.ok] == []


def test_failures_say_what_and_why(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        [{"name": "c", "chat": ["User: the beasts"], "fire": ["glade"], "not_fire": [1]}],
    )
    (result,) = run_file(path, importer=IMPORTER)
    assert not result.ok
    assert result.missing == ("'glade' (Eldoria.2) (no primary match)",)
    assert result.unexpected == (
        "'shadowfang' (Eldoria.1) (key 'beast' found in message 0 (newest = 0))",
    )
    assert result.describe().startswith("did not fire: 'glade'")


def test_only_forbids_everything_else(tmp_path: Path) -> None:
    chat = ["User: magic in the glade"]
    loose = {"name": "loose", "chat": chat, "fire": ["glade"]}
    strict = {"name": "strict", "chat": chat, "fire": ["glade"], "only": True}
    ok, bad = run_file(write(tmp_path, [loose, strict]), importer=IMPORTER)
    assert ok.ok and not bad.ok
    assert bad.unexpected == ("'power' (Eldoria.3) (key 'magic' found in message 0 (newest = 0))",)


def test_chat_lines_and_messages(tmp_path: Path) -> None:
    chat: list[Any] = [
        "Seraphina: Welcome.",
        "Hello there",
        "User: Thanks: really.",
        {"name": "Narrator", "mes": "Night falls.", "is_system": True},
    ]
    suite = load(write(tmp_path, [{"name": "c", "chat": chat}]), importer=IMPORTER)
    messages = suite.cases[0].chat
    assert [(m.name, m.mes, m.is_user, m.is_system) for m in messages] == [
        ("Seraphina", "Welcome.", False, False),
        ("User", "Hello there", True, False),
        ("User", "Thanks: really.", True, False),
        ("Narrator", "Night falls.", False, True),
    ]


def test_hidden_messages_are_not_scanned(tmp_path: Path) -> None:
    hidden = {"name": "User", "mes": "the glade", "is_user": True, "is_system": True}
    (result,) = run_file(
        write(tmp_path, [{"name": "c", "chat": [hidden], "not_fire": [2]}]), importer=IMPORTER
    )
    assert result.ok


def test_settings_merge_case_over_file(tmp_path: Path) -> None:
    case = {"name": "c", "chat": ["x"], "settings": {"depth": 5}}
    suite = load(
        write(tmp_path, [case, {"name": "d", "chat": []}], settings={"recursive": True}),
        importer=IMPORTER,
    )
    first, second = suite.cases
    assert (first.settings.depth, first.settings.recursive) == (5, True)
    assert (second.settings.depth, second.settings.recursive) == (2, True)


def test_character_card_binds_its_book(tmp_path: Path) -> None:
    card = {
        "spec": "chara_card_v2",
        "spec_version": "2.0",
        "data": {
            "name": "Seraphina",
            "description": "A guardian.",
            "character_book": {
                "name": "Seraphina's lore",
                "entries": [
                    {
                        "id": 0,
                        "keys": ["lantern"],
                        "content": "The lantern glows.",
                        "enabled": True,
                        "insertion_order": 100,
                        "extensions": {},
                        "comment": "lantern",
                    }
                ],
            },
        },
    }
    (tmp_path / "card.json").write_text(json.dumps(card), encoding="utf-8")
    case = {"name": "c", "chat": ["User: the lantern in the glade"], "fire": ["lantern", "glade"]}
    path = write(tmp_path, [{**case, "only": True}], character="card.json")
    suite = load(path, importer=IMPORTER)
    assert suite.character is not None and suite.character.book == "Seraphina's lore"
    assert suite.global_books == ("Eldoria",)
    assert all(r.ok for r in run(suite))


@pytest.mark.parametrize(
    ("case", "path", "words"),
    [
        ({"name": "c"}, "$.cases.0", "'chat' is a required property"),
        ({"name": "c", "chat": [], "type": "Normal"}, "$.cases.0.type", "'Normal' is not one of"),
        (
            {"name": "c", "chat": [], "settings": {"recursion": True}},
            "$.cases.0.settings",
            "recursion",
        ),
        ({"name": "c", "chat": [3]}, "$.cases.0.chat.0", "3"),
        (
            {"name": "c", "chat": [], "fire": ["no such title"]},
            "$.cases.0.fire.0",
            "no entry with title",
        ),
        (
            {"name": "c", "chat": [], "not_fire": [42]},
            "$.cases.0.not_fire.0",
            "no entry with uid 42",
        ),
        (
            {"name": "c", "chat": [], "fire": [{"book": "Nope", "uid": 1}]},
            "$.cases.0.fire.0",
            "no book named 'Nope'",
        ),
    ],
)
def test_errors_name_the_file_and_json_path(
    tmp_path: Path, case: dict[str, Any], path: str, words: str
) -> None:
    file = write(tmp_path, [case])
    with pytest.raises(AuthorTestError) as exc:
        load(file, importer=IMPORTER)
    assert exc.value.file == str(file)
    assert exc.value.json_path == path
    assert words in exc.value.message


def test_ambiguous_uid_across_books(tmp_path: Path) -> None:
    other = tmp_path / "Other.json"
    other.write_text(ELDORIA.read_text(encoding="utf-8"), encoding="utf-8")
    doc = {"books": [str(ELDORIA), "Other.json"], "cases": [{"name": "c", "chat": [], "fire": [2]}]}
    file = tmp_path / "t.witest.json"
    file.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(AuthorTestError, match=r"uid 2 is ambiguous \(Eldoria.2, Other.2\)"):
        load(file, importer=IMPORTER)
    doc["cases"] = [{"name": "c", "chat": ["User: glade"], "fire": [{"book": "Other", "uid": 2}]}]
    file.write_text(json.dumps(doc), encoding="utf-8")
    assert all(r.ok for r in run_file(file, importer=IMPORTER))


def test_unimportable_book_and_bad_json(tmp_path: Path) -> None:
    (tmp_path / "broken.json").write_text('{"entries": ', encoding="utf-8")
    doc = {"books": ["broken.json"], "cases": [{"name": "c", "chat": []}]}
    file = tmp_path / "t.witest.json"
    file.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(AuthorTestError) as exc:
        load(file, importer=IMPORTER)
    assert exc.value.json_path == "$.books.0" and "cannot import broken.json" in exc.value.message
    file.write_text("{", encoding="utf-8")
    with pytest.raises(AuthorTestError, match="not JSON"):
        load(file, importer=IMPORTER)


def test_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["test", str(ELDORIA_TABLE)]) == 0
    assert capsys.readouterr().out == "15 passed, 0 failed\n"
    bad = write(tmp_path, [{"name": "wrong", "chat": ["User: hi"], "fire": ["glade"]}])
    assert main(["test", str(bad), str(ELDORIA_TABLE)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == [
        f"FAIL {bad}::wrong: did not fire: 'glade' (Eldoria.2) (no primary match)",
        "15 passed, 1 failed",
    ]
    (tmp_path / "broken.witest.json").write_text("[]", encoding="utf-8")
    assert main(["test", str(tmp_path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"ERROR {tmp_path / 'broken.witest.json'}: $: [] is not of type")
    assert out[-1] == "0 passed, 1 failed, 1 file(s) with errors"


@pytest.mark.parametrize(
    ("doc", "where", "named"),
    [
        ({"books": ["gone.json"], "cases": [{"name": "c", "chat": []}]}, "$.books.0", "gone.json"),
        ({"books": ["sub"], "cases": [{"name": "c", "chat": []}]}, "$.books.0", "sub"),
        (
            {
                "books": [str(ELDORIA)],
                "character": "card.json",
                "cases": [{"name": "c", "chat": []}],
            },
            "$.character",
            "card.json",
        ),
        (
            {"books": [str(ELDORIA)], "cases": [{"name": "c", "chat": "gone.jsonl"}]},
            "$.cases.0.chat",
            "gone.jsonl",
        ),
    ],
)
def test_unreadable_named_file_is_said_like_every_command(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    doc: dict[str, Any],
    where: str,
    named: str,
) -> None:
    """A book, card or chat the table names that cannot be opened: ``PATH: cannot read:
    REASON`` (``cli._conventions.cannot_read``) after the table file and its JSON path, not
    "cannot import X as json"."""
    (tmp_path / "sub").mkdir()
    file = tmp_path / "t.witest.json"
    file.write_text(json.dumps(doc), encoding="utf-8")
    target = tmp_path / named
    with pytest.raises(UnreadableFile) as exc:
        load(file, importer=IMPORTER)
    assert (exc.value.file, exc.value.json_path, exc.value.target) == (
        str(file),
        where,
        str(target),
    )
    assert isinstance(exc.value.error, OSError)
    said = f"{file}: {where}: {cannot_read(str(target), exc.value.error)}"
    assert str(exc.value) == said
    assert main(["test", str(file)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == [f"ERROR {said}", "0 passed, 0 failed, 1 file(s) with errors"]
    assert "cannot import" not in out[0]
    assert main(["test", "--json", str(file)]) == 1
    assert json.loads(capsys.readouterr().out)["cases"][0]["problem"] == said


def test_pytest_plugin_collects_tables(tmp_path: Path) -> None:
    write(
        tmp_path,
        [
            {"name": "right", "chat": ["User: the beasts"], "fire": ["shadowfang"]},
            {"name": "wrong", "chat": ["User: the beasts"], "fire": ["glade"]},
        ],
    )
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "1 failed, 1 passed" in proc.stdout
    assert (
        "t.witest.json::wrong: did not fire: 'glade' (Eldoria.2) (no primary match)" in proc.stdout
    )


def test_chat_from_a_sillytavern_chat_file(tmp_path: Path) -> None:
    lines = [
        {"user_name": "User", "character_name": "Seraphina", "create_date": 1},
        {"name": "Seraphina", "is_user": False, "mes": "Welcome to my glade."},
        {"name": "User", "is_user": True, "mes": "Thank you."},
    ]
    (tmp_path / "chat.jsonl").write_text("\n".join(map(json.dumps, lines)), encoding="utf-8")
    path = write(tmp_path, [{"name": "c", "chat": "chat.jsonl", "fire": ["glade"], "only": True}])
    (result,) = run_file(path, importer=IMPORTER)
    assert [m.name for m in result.case.chat] == ["Seraphina", "User"]
    assert result.ok
    bad = write(tmp_path, [{"name": "c", "chat": str(ELDORIA)}])
    with pytest.raises(AuthorTestError) as exc:
        load(bad, importer=IMPORTER)
    assert exc.value.json_path == "$.cases.0.chat" and "holds no chat messages" in exc.value.message


def test_later_steps_carry_timed_effects(tmp_path: Path) -> None:
    from worldinfo.types import Entry

    entries = {
        "0": dict(Entry.new(0, key=["storm"], comment="storm", content="Rain.", sticky=5).data),
        "1": dict(Entry.new(1, key=["dragon"], comment="dragon", content="Fire.", cooldown=5).data),
    }
    (tmp_path / "Weather.json").write_text(json.dumps({"entries": entries}), encoding="utf-8")
    case = {
        "name": "timed",
        "chat": ["User: A storm and a dragon!"],
        "fire": ["storm", "dragon"],
        "then": [
            {"append": ["Bot: Take cover.", "User: The dragon is back."], "fire": ["storm"]},
            {"append": ["Bot: Hm.", "User: The dragon again."], "fire": ["dragon"]},
        ],
    }
    doc = {"books": ["Weather.json"], "cases": [case]}
    path = tmp_path / "t.witest.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    (result,) = run_file(path, importer=IMPORTER)
    assert result.missing == ("step 2: 'dragon' (Weather.1) (cooldown)",)
    assert result.unexpected == ()
    case["then"][1]["not_fire"] = ["dragon"]  # type: ignore[index]
    del case["then"][1]["fire"]  # type: ignore[attr-defined]
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert run_file(path, importer=IMPORTER)[0].ok
