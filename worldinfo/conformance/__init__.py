"""Golden-case runners, one per case format, dispatched on each file's ``"format"`` field.

A runner takes the parsed case file and its path and yields one ``Outcome`` per checked
unit (a step, a regex case, a retrieval case). ``run_paths`` walks files and folders.
This package does I/O (reads case files); the engine itself never does.
"""

from __future__ import annotations

from worldinfo.conformance.base import Outcome, register, run_file, run_paths, runners

__all__ = ["Outcome", "register", "run_file", "run_paths", "runners"]
