"""Every module of the package stays within 300 lines (house style), bar a shrinking list."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "worldinfo"
LIMIT = 300

# Modules over the limit that are allowed for now: none any more. Only ever remove entries:
# the test fails on a listed module that is back within the limit (take it off) or gone,
# and on any module over the limit that is not listed here.
OVER_THE_LIMIT: frozenset[str] = frozenset()


def module_lines(package: Path) -> dict[str, int]:
    """Lines of every ``.py`` file under ``package``, keyed by its path from the repo root."""
    return {
        path.relative_to(package.parent).as_posix(): len(
            path.read_text(encoding="utf-8").splitlines()
        )
        for path in sorted(package.rglob("*.py"))
    }


def size_problems(lines: dict[str, int], *, allowed: frozenset[str]) -> list[str]:
    """What breaks the rule: unlisted modules over ``LIMIT``, and stale entries of ``allowed``."""
    problems = [
        f"{path}: {n} lines (limit {LIMIT}); split it"
        for path, n in lines.items()
        if n > LIMIT and path not in allowed
    ]
    for path in sorted(allowed):
        if path not in lines:
            problems.append(f"{path}: listed in OVER_THE_LIMIT but gone; remove the entry")
        elif lines[path] <= LIMIT:
            problems.append(f"{path}: {lines[path]} lines, within the limit; remove the entry")
    return problems


def test_modules_stay_within_the_limit() -> None:
    assert size_problems(module_lines(PACKAGE), allowed=OVER_THE_LIMIT) == []


def test_the_check_catches_growth_and_stale_entries(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "small.py").write_text("x = 1\n" * LIMIT, encoding="utf-8")
    (package / "sub" / "big.py").write_text("x = 1\n" * (LIMIT + 1), encoding="utf-8")
    lines = module_lines(package)
    assert lines == {"pkg/small.py": LIMIT, "pkg/sub/big.py": LIMIT + 1}
    assert size_problems(lines, allowed=frozenset()) == [
        f"pkg/sub/big.py: {LIMIT + 1} lines (limit {LIMIT}); split it"
    ]
    assert size_problems(lines, allowed=frozenset({"pkg/sub/big.py"})) == []
    assert size_problems(
        lines, allowed=frozenset({"pkg/small.py", "pkg/sub/big.py", "pkg/x.py"})
    ) == [
        f"pkg/small.py: {LIMIT} lines, within the limit; remove the entry",
        "pkg/x.py: listed in OVER_THE_LIMIT but gone; remove the entry",
    ]
