"""The service without HTTP: uploads are prepared once per worker, by content hash."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("starlette")

from worldinfo.examples import path as example
from worldinfo.importers import Limits
from worldinfo.server import handlers as h
from worldinfo.server.backends import open_storage
from worldinfo.server.service import Service


def test_the_same_bytes_are_imported_once_per_worker(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    raw = example("emberfall.json").read_bytes()
    svc = Service(open_storage(db), limits=Limits())
    a = svc.import_upload("", raw, name="a.json", trust=False)
    b = svc.import_upload("", raw, name="b.json", trust=False)
    c = svc.import_upload("", raw, name="c.json", trust=True)
    assert a.id != b.id and a.sha256 == b.sha256 == c.sha256
    assert svc.imported(a) is svc.imported(b)  # one prepared book for both uploads
    assert svc.imported(a) is not svc.imported(c)  # trust is part of the key
    assert svc.uploads.misses == 2
    sid = h.create_session(svc, "", {"books": [a.id, b.id]})["id"]
    msg = {"name": "User", "is_user": True, "mes": "Emberfall"}
    h.generate(svc, "", sid, {"append": [msg]})
    svc.storage.close()

    other = Service(open_storage(db), limits=Limits())  # another worker: imports once itself
    h.generate(other, "", sid, {"append": [msg]})
    h.generate(other, "", sid, {"append": [msg]})
    assert other.uploads.misses == 1
    assert h.session_json(other.storage.session("", sid))["turn"] == 3
    other.storage.close()
