"""What ``pip install worldinfo`` gives a user: one package, one version, real metadata."""

from __future__ import annotations

import email
import subprocess
import sys
import tomllib
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

import worldinfo
from worldinfo.cli import main

REPO = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def test_version_is_single_sourced(capsys: pytest.CaptureFixture[str]) -> None:
    assert PYPROJECT["project"]["dynamic"] == ["version"]
    assert PYPROJECT["tool"]["hatch"]["version"]["path"] == "worldinfo/__init__.py"
    assert worldinfo.__version__ == metadata.version("worldinfo")
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out == f"worldinfo {worldinfo.__version__}\n"


def test_long_description_starts_with_install_and_use() -> None:
    readme = (REPO / PYPROJECT["project"]["readme"]).read_text(encoding="utf-8")
    first_block = readme.split("```")[1]
    assert "pip install worldinfo" in first_block and "worldinfo demo" in first_block
    assert "scripts/gate" not in readme and ".venv" not in readme


def test_sdist_leaves_out_data_under_other_licences() -> None:
    shipped = PYPROJECT["tool"]["hatch"]["build"]["targets"]["sdist"]["only-include"]
    assert not {"golden", "tests"} & set(shipped)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    cmd = [sys.executable, "-m", "hatchling", "build", "-t", "wheel", "-d", str(out)]
    subprocess.run(cmd, cwd=REPO, check=True, capture_output=True)
    (path,) = out.glob("*.whl")
    return path


def test_wheel_installs_only_the_worldinfo_package(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names}
    assert tops == {"worldinfo", f"worldinfo-{worldinfo.__version__}.dist-info"}
    assert "worldinfo/importers/schemas/st-world.schema.json" in names
    assert "worldinfo/py.typed" in names


def test_wheel_metadata(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        meta_name = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        meta = email.message_from_bytes(zf.read(meta_name))
    assert meta["Version"] == worldinfo.__version__
    assert meta["Author"] and meta["Keywords"] and "sillytavern" in meta["Keywords"]
    classifiers = meta.get_all("Classifier") or []
    assert "Typing :: Typed" in classifiers and "Programming Language :: Python :: 3.11" in (
        classifiers
    )
    assert str(meta.get_payload()).lstrip().startswith("# worldinfo\n\n```sh\npip install")
