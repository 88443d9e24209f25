"""Start-up time: a fresh interpreter per measurement, median of N.

Measures, each in a new subprocess (wall time of the whole process, and its CPU time from
``os.wait4``): ``python -c pass`` (the interpreter alone), ``import worldinfo``,
``worldinfo --help`` and ``worldinfo scan`` of the bundled example book with a one-message
chat (the README's example). The commands run exactly as the console script does
(``from worldinfo.cli import main``). With ``--base PATH`` the same commands also run on
the code at PATH (``PYTHONPATH=PATH``), interleaved with this checkout's runs so both see
the same machine load; the scan's output is checked to be identical on both. Bytecode is
cached (``PYTHONPYCACHEPREFIX`` in a temporary folder) and warmed before measuring, as for an
installed package; the run fails if a module was compiled while measured. No ``PYTHON*``
variable of the calling shell reaches the measured processes (``PYTHONDONTWRITEBYTECODE=1``
there made every figure a compile-everything figure, and ``PYTHONDEVMODE`` or
``PYTHONTRACEMALLOC`` would slow the bare interpreter too).

    python bench/startup.py
    python bench/startup.py --base /work/wt/base --repeats 21 --json
    python bench/startup.py --base /work/wt/base --instructions   # valgrind: load-independent
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WHERE = ["-c", "import worldinfo; print(worldinfo.__file__)"]
CLI = "import sys; from worldinfo.cli import main; sys.exit(main())"
MESSAGE = {
    "name": "User",
    "is_user": True,
    "mes": "The ferry docks at Emberfall. Is the Ashen Guild still selling maps?",
}


def commands(chat: Path) -> dict[str, list[str]]:
    """The measured commands, as argv lists for the current interpreter."""
    book = str(ROOT / "worldinfo" / "examples" / "emberfall.json")
    return {
        "python -c pass": ["-c", "pass"],
        "import worldinfo": ["-c", "import worldinfo"],
        "worldinfo --help": ["-c", CLI, "--help"],
        "worldinfo scan (example, 1 message)": ["-c", CLI, "scan", book, "--chat", str(chat)],
    }


def child_env(root: Path, *, cache: Path | None) -> dict[str, str]:
    """The child's environment: this one without any ``PYTHON*`` variable, plus ours.

    Inherited ``PYTHON*`` settings (``PYTHONDONTWRITEBYTECODE``, ``PYTHONDEVMODE``,
    ``PYTHONTRACEMALLOC``, ``PYTHONPROFILEIMPORTTIME``, ``PYTHONWARNINGS``, ...) change what a
    fresh interpreter costs, so none reaches the measured process: it sees only
    ``PYTHONPATH`` and the bytecode setting chosen here."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONPATH"] = str(root)
    if cache is None:  # the standard library's own caches only, as PYTHONDONTWRITEBYTECODE=1
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    else:
        env["PYTHONPYCACHEPREFIX"] = str(cache)
    return env


def run_child(
    argv: list[str], *, root: Path, cwd: Path, cached: bool = True
) -> tuple[float, float, bytes]:
    """One fresh process: its wall time, and its own CPU time from ``os.wait4``.

    ``cwd`` must not hold a ``worldinfo`` package: ``python -c`` puts it first on the path,
    ahead of ``PYTHONPATH``. Bytecode is cached under ``cwd`` (as an installed package has
    it; the code roots themselves are not written to), written by the warm-up runs. The
    child is spawned directly (``os.posix_spawn``, output to files), so the figures hold
    no pipe or ``subprocess`` bookkeeping of this process."""
    env = child_env(root, cache=cwd / "pycache" if cached else None)
    out_path, err_path = cwd / "stdout", cwd / "stderr"
    with out_path.open("wb") as out, err_path.open("wb") as err:
        actions = [
            (os.POSIX_SPAWN_DUP2, out.fileno(), 1),
            (os.POSIX_SPAWN_DUP2, err.fileno(), 2),
        ]
        os.chdir(cwd)  # posix_spawn has no cwd argument; restored below
        try:
            t = time.perf_counter()
            pid = os.posix_spawn(sys.executable, [sys.executable, *argv], env, file_actions=actions)
            _pid, status, usage = os.wait4(pid, 0)
            wall = time.perf_counter() - t
        finally:
            os.chdir(ROOT)
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"{argv!r} failed ({code}): {err_path.read_text()[-500:]}")
    return wall, usage.ru_utime + usage.ru_stime, out_path.read_bytes()


def cached_files(tmp: Path) -> set[Path]:
    """The bytecode files under the cache prefix."""
    return set((tmp / "pycache").rglob("*.pyc"))


def measure(
    roots: dict[str, Path], *, repeats: int, cached: bool = True
) -> dict[str, dict[str, dict[str, float]]]:
    """Median wall and CPU ms per command and code root, runs interleaved across roots."""
    with tempfile.TemporaryDirectory() as tmp:
        chat = Path(tmp) / "chat.json"
        chat.write_text(json.dumps([MESSAGE]))
        cmds = commands(chat)
        samples: dict[str, dict[str, list[tuple[float, float]]]] = {
            label: {name: [] for name in cmds} for label in roots
        }
        outputs: dict[str, dict[str, bytes]] = {label: {} for label in roots}
        for label, root in roots.items():  # warm the bytecode caches, check outputs
            where = run_child(WHERE, root=root, cwd=Path(tmp))[2].decode().strip()
            if not Path(where).is_relative_to(root):
                raise SystemExit(f"{label}: worldinfo comes from {where}, not {root}")
            for name, argv in cmds.items():
                outputs[label][name] = run_child(argv, root=root, cwd=Path(tmp))[2]
        warmed = cached_files(Path(tmp))
        for _ in range(repeats):
            for name, argv in cmds.items():
                for label, root in roots.items():
                    wall, cpu, _out = run_child(argv, root=root, cwd=Path(tmp), cached=cached)
                    samples[label][name].append((wall, cpu))
        if cached and cached_files(Path(tmp)) != warmed:  # a module compiled while measured
            raise SystemExit("bytecode was written during the measured runs: not cached")
    scan = "worldinfo scan (example, 1 message)"
    if len({out[scan] for out in outputs.values()}) != 1:
        raise SystemExit("the scan's output differs between the code roots")
    return {
        label: {
            name: {
                "wall_ms": round(statistics.median(w for w, _ in runs) * 1000, 1),
                "cpu_ms": round(statistics.median(c for _, c in runs) * 1000, 1),
                "best_wall_ms": round(min(w for w, _ in runs) * 1000, 1),
                "best_cpu_ms": round(min(c for _, c in runs) * 1000, 1),
            }
            for name, runs in by_name.items()
        }
        for label, by_name in samples.items()
    }


def instructions(roots: dict[str, Path]) -> dict[str, dict[str, int]]:
    """Instructions each command executes (valgrind's callgrind, one run each, after a warm
    run): unlike time, the count does not move with the machine's load."""
    import shutil

    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise SystemExit("--instructions needs valgrind on PATH")
    out: dict[str, dict[str, int]] = {label: {} for label in roots}
    with tempfile.TemporaryDirectory() as tmp:
        chat = Path(tmp) / "chat.json"
        chat.write_text(json.dumps([MESSAGE]))
        for name, argv in commands(chat).items():
            for label, root in roots.items():
                run_child(argv, root=root, cwd=Path(tmp))  # warm the bytecode cache
                env = child_env(root, cache=Path(tmp) / "pycache")
                proc = subprocess.run(
                    [valgrind, "--tool=callgrind", f"--callgrind-out-file={tmp}/cg.out"]
                    + [sys.executable, *argv],
                    capture_output=True,
                    env=env,
                    cwd=tmp,
                    check=True,
                    timeout=600,
                )
                refs = [ln for ln in proc.stderr.decode().splitlines() if "I   refs:" in ln]
                out[label][name] = int(refs[-1].split()[-1].replace(",", ""))
    return out


def main() -> int:
    """Measure and print the table (or one JSON object)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=11, help="runs per command (median)")
    parser.add_argument("--base", type=Path, help="also measure the code at this path")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--no-bytecode-cache",
        action="store_true",
        help="compile every module in every run (as under PYTHONDONTWRITEBYTECODE=1)",
    )
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="count instructions under valgrind instead of timing (load-independent)",
    )
    args = parser.parse_args()
    roots = {"this": ROOT}
    if args.base:
        roots["base"] = args.base.resolve()
    if args.instructions:
        counts = instructions(roots)
        if args.json:
            print(json.dumps({"instructions": counts}))
            return 0
        for name, count in counts["this"].items():
            line = f"  {name:38} {count / 1e6:8.1f} M instructions"
            if "base" in counts:
                before = counts["base"][name]
                line += f"   base {before / 1e6:8.1f} M   ratio {before / count:.2f}x"
            print(line)
        return 0
    load = os.getloadavg()
    cached = not args.no_bytecode_cache
    results = measure(roots, repeats=max(1, args.repeats), cached=cached)
    machine = {
        "cpus": os.cpu_count(),
        "cpu": platform.processor() or platform.machine(),
        "python": platform.python_version(),
        "load_before": [round(x, 2) for x in load],
        "load_after": [round(x, 2) for x in os.getloadavg()],
        "repeats": args.repeats,
        "bytecode_cache": cached,
    }
    if args.json:
        print(json.dumps({"machine": machine, "results": results}))
        return 0
    print(
        f"machine: {machine['cpus']} CPUs, {machine['cpu']}, Python {machine['python']}, "
        f"load {machine['load_before']} -> {machine['load_after']}, "
        f"median of {args.repeats}, bytecode {'cached' if cached else 'compiled every run'}"
    )
    this = results["this"]
    for name, fig in this.items():
        line = f"  {name:38} {fig['wall_ms']:7.1f} ms wall {fig['cpu_ms']:7.1f} ms CPU"
        if "base" in results:
            b = results["base"][name]
            line += (
                f"   base {b['wall_ms']:7.1f} wall {b['cpu_ms']:7.1f} CPU"
                f"   ratio {b['wall_ms'] / fig['wall_ms']:.2f}x wall"
            )
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
