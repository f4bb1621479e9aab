"""Mutation testing of the engine, one module at a time (issue 15; not in CI: too slow).

    python tools/mutation.py run sim/phases/end.py [--children 2]   # mutate one module, run the tests that reach it
    python tools/mutation.py report [sim/phases/end.py ...]        # score per module, and every survivor

``run`` is ``mutmut run --max-children N "sim.phases.end.x*"``: mutmut (configured in ``pyproject.toml``,
``[tool.mutmut]``) mutates the module and runs, for each mutant, only the tests that call the mutated function
(found by its stats run), failing fast. Results stay in ``mutants/`` (git-ignored) between runs, so a second run only
tests what changed. ``report`` reads them: killed, survived, timeouts (counted as killed: the mutant made the tests
hang), not yet run. ``tools/mutation_survivors.toml`` lists the survivors that are equivalent (no test can tell them
from the engine: same results, only slower or another dtype with the same values) and those accepted, each with the
reason; the score is killed / (killed + survived - equivalent), and every survivor not listed there is printed.
"""

from __future__ import annotations

import argparse
import json
import signal
import subprocess
import sys
import tomllib
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MUTANTS = ROOT / "mutants"
SURVIVORS = ROOT / "tools" / "mutation_survivors.toml"
KILLED = {1, 3, 36, 24, -24, 152, 255, 37}  # failed tests, pytest internal error, timeouts (mutmut's exit codes)
SURVIVED = {0}
NO_TESTS = {5, 33}


def module_of(path: str) -> str:
    """sim/phases/end.py -> sim.phases.end (a package's __init__.py -> the package)."""
    parts = list(Path(path).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def pattern(path: str) -> str:
    return module_of(path) + ".x*"  # mutant names are <module>.x_<function>__mutmut_<k> (methods: xǁClassǁ...)


def run(paths: list[str], children: int, resume: bool) -> int:
    names = [pattern(p) for p in paths]
    if resume:  # only mutants not run yet or that survived (mutmut re-runs every mutant it is given by name)
        res = results(MUTANTS)
        names = [k for p in paths for k, v in res.get(module_of(p), {}).items() if v is None or v in SURVIVED]
        if not names:
            print("nothing to resume: every mutant of these modules has been killed")
            return 0
    cmd = ["mutmut", "run", "--max-children", str(children), *names]
    print("+", " ".join(cmd[:6]), "..." if len(cmd) > 6 else "", flush=True)
    return subprocess.call(cmd, cwd=ROOT)


def results(folder: Path) -> dict[str, dict[str, int | None]]:
    """module -> {mutant name: exit code or None (not run)} from mutmut's .meta files under ``folder``."""
    out: dict[str, dict[str, int | None]] = {}
    for meta in sorted(folder.glob("sim/**/*.py.meta")):
        source = meta.relative_to(folder).with_suffix("")
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        out[module_of(str(source))] = codes
    return out


def explained() -> tuple[dict[str, str], dict[str, str]]:
    """(equivalent, accepted): mutant name -> reason, from tools/mutation_survivors.toml."""
    data = tomllib.loads(SURVIVORS.read_text()) if SURVIVORS.exists() else {}
    return data.get("equivalent", {}), data.get("accepted", {})


def report(paths: list[str], folder: Path) -> int:
    wanted = {module_of(p) for p in paths}
    res = results(folder)
    if not res:
        print("no results: run `python tools/mutation.py run MODULE` first", file=sys.stderr)
        return 1
    equivalent, accepted = explained()
    head = ("module", "mutants", "killed", "survived", "equiv.", "accepted", "no test", "not run", "score")
    print(f"{head[0]:<26}" + "".join(f"{h:>9}" for h in head[1:]))
    unexplained = []
    for module, codes in res.items():
        if (wanted and module not in wanted) or not codes:
            continue
        c = Counter(
            "killed"
            if v in KILLED
            else "survived"
            if v in SURVIVED
            else "no tests"
            if v in NO_TESTS
            else "not run"
            if v is None
            else "other"
            for v in codes.values()
        )
        lost = [k for k, v in codes.items() if v in SURVIVED or v in NO_TESTS]
        eq = sum(k in equivalent for k in lost)
        acc = sum(k in accepted for k in lost)
        unexplained += [k for k in lost if k not in equivalent and k not in accepted]
        judged = c["killed"] + len(lost) - eq
        score = f"{100 * c['killed'] / judged:.1f}%" if judged else "-"
        row = (len(codes), c["killed"], c["survived"], eq, acc, c["no tests"], c["not run"], score)
        print(f"{module:<26}" + "".join(f"{x:>9}" for x in row))
    if unexplained:
        print("\nsurvivors not yet explained in tools/mutation_survivors.toml (`mutmut show NAME` prints the diff):")
        print("\n".join(f"  {name}" for name in unexplained))
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="mutate modules and run their tests")
    r.add_argument("paths", nargs="+", help="module files, e.g. sim/capital.py")
    r.add_argument("--children", type=int, default=1, help="parallel test processes (the machine has 2 cores)")
    r.add_argument(
        "--resume",
        action="store_true",
        help="only mutants not run yet or that survived (after an interruption, or new tests)",
    )
    rep = sub.add_parser("report", help="score per module and the surviving mutants")
    rep.add_argument("paths", nargs="*", help="module files (default: every module with results)")
    rep.add_argument("--results", type=Path, default=MUTANTS, help="a copy of mutants/ (its .meta files) to read")
    args = p.parse_args(argv)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `report | head` stops quietly
    return run(args.paths, args.children, args.resume) if args.cmd == "run" else report(args.paths, args.results)


if __name__ == "__main__":
    sys.exit(main())
