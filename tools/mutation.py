"""Mutation testing of the engine, one module at a time (not in CI: too slow).

    python tools/mutation.py run sim/phases/end.py [--children 2]   # mutate one module, run the tests that reach it
    python tools/mutation.py report [sim/phases/end.py ...]        # score per module, and every survivor
    python tools/mutation.py run sim/laws.py --sample 60 --seed 1   # a seeded random sample of 60 mutants instead

``run`` is ``mutmut run --max-children N "sim.phases.end.x*"``: mutmut (configured in ``pyproject.toml``,
``[tool.mutmut]``) mutates the module and runs, for each mutant, only the tests that call the mutated function
(found by its stats run), failing fast. Results stay in ``mutants/`` (git-ignored) between runs, so a second run only
tests what changed. ``report`` reads them: killed, survived, timeouts (counted as killed: the mutant made the tests
hang), not yet run. ``tools/mutation_survivors.toml`` lists the survivors that are equivalent (no test can tell them
from the engine: same results, only slower or another dtype with the same values) and those accepted, each with the
reason; the score is killed / (killed + survived - equivalent), and every survivor not listed there is printed.

``--sample N --seed S`` runs, per module, a random sample of N of its mutants drawn with ``S`` and the
module's name (the same sample on every run of the same population: run it again to resume). The sample is kept in
``mutants/mutation-sample.json`` with each sampled mutant's first verdict; ``report`` estimates such a module's score
from its sampled mutants only (killed / judged, with a 95 % Wilson interval, "n of N sampled"), the score of the first
verdicts (before tests written for the sample's survivors) beside it.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import hashlib
import json
import math
import random
import signal
import subprocess
import sys
import tomllib
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MUTANTS = ROOT / "mutants"
SURVIVORS = ROOT / "tools" / "mutation_survivors.toml"
SAMPLE = "mutation-sample.json"  # in mutants/: module -> {seed, size, population, names, first verdicts}
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


def run(paths: list[str], children: int, resume: bool, sample: int | None = None, seed: int = 1) -> int:
    if sample is not None:
        return run_sample(paths, children, resume, sample, seed)
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


# --- sampling ---------------------------------------------------------------------------------------------


def draw(population: list[str], size: int, seed: int, module: str) -> list[str]:
    """A seeded random sample of ``size`` mutant names of one module (all of them if there are fewer).

    The names sorted are shuffled by a generator seeded with ``seed`` and the module's name, and the first ``size``
    taken: the sample depends only on the population, the seed and the module (not on the order mutmut lists names
    in, nor on the other modules of the run), and a larger sample contains the smaller one (grow it and resume).
    Returned in the population's sorted order."""
    ordered = sorted(population, key=_natural)
    shuffled = list(ordered)
    random.Random(f"{seed}:{module}").shuffle(shuffled)
    chosen = set(shuffled[:size])
    return [k for k in ordered if k in chosen]


def _natural(name: str) -> tuple[str, int]:
    """sort key: a function's mutants in their numeric order (mutmut_2 before mutmut_10)."""
    head, _, k = name.rpartition("__mutmut_")
    return (head, int(k) if k.isdigit() else -1)


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval of a proportion k / n (95 % by default); (0, 1) when n is 0."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def load_sample(folder: Path) -> dict[str, dict[str, dict]]:
    """module -> seed (as text) -> that sample: several seeds' samples of a module are kept side by side (a second
    seed, drawn after the tests written for the first sample's survivors, measures the module without their bias)."""
    f = folder / SAMPLE
    store = json.loads(f.read_text()) if f.exists() else {}
    return {m: {str(e["seed"]): e} if "names" in e else e for m, e in store.items()}  # one sample per module before


def _generate() -> None:
    """Let mutmut (re)generate the mutants of changed sources and update its test statistics, without running any
    mutant: it is given a name that matches nothing and stops there (with an assertion we expect)."""
    out = subprocess.run(
        ["mutmut", "run", "--max-children", "1", "sim.x__no_such_function__mutmut_0"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if "nothing matches" not in out.stdout + out.stderr:
        sys.stdout.write(out.stdout[-3000:])
        sys.stderr.write(out.stderr[-3000:])
        raise SystemExit("mutmut failed while generating mutants (output above)")


def _tested_functions() -> set[str] | None:
    stats = MUTANTS / "mutmut-stats.json"
    if not stats.exists():
        return None
    return {k for k, v in json.loads(stats.read_text())["tests_by_mangled_function_name"].items() if v}


def _mark_no_tests(module_path: str, names: list[str]) -> None:
    """Record mutmut's own verdict `no tests` (exit code 33) for sampled mutants of functions no test reaches: mutmut
    gives it in a whole-module run but fails on such a name given explicitly."""
    meta = MUTANTS / (str(Path(module_path)) + ".meta")
    data = json.loads(meta.read_text())
    for k in names:
        data["exit_code_by_key"][k] = 33
    meta.write_text(json.dumps(data, indent=4))


def run_sample(paths: list[str], children: int, resume: bool, size: int, seed: int) -> int:
    """Run a seeded sample of ``size`` mutants of each module (resumable: only sampled mutants not run yet, and with
    ``resume`` also the sampled survivors not listed as equivalent, e.g. after new tests)."""
    _generate()
    res = results(MUTANTS)
    store = load_sample(MUTANTS)
    tested = _tested_functions()
    todo: list[str] = []
    for path in paths:
        module = module_of(path)
        codes = res.get(module)
        if not codes:
            print(f"{path}: no mutants (not a mutated module?)", file=sys.stderr)
            return 1
        names = draw(list(codes), size, seed, module)
        entry = store.setdefault(module, {}).get(str(seed), {})
        if entry.get("population") != len(codes):  # another population (the module changed): start over
            entry = {"first": {}}
        entry["first"] = {k: v for k, v in entry.get("first", {}).items() if k in names}  # kept when the sample grows
        entry.update(seed=seed, size=size, population=len(codes), names=names)
        store[module][str(seed)] = entry
        untested = [k for k in names if tested is not None and k.partition("__mutmut_")[0] not in tested]
        if untested:
            _mark_no_tests(path, [k for k in untested if codes[k] is None])
        rerun = resume_survivors(names, codes) if resume else []
        todo += [k for k in names if k not in untested and (codes[k] is None or k in rerun)]
        print(f"{module}: {len(names)} of {len(codes)} mutants sampled (seed {seed}), {len(untested)} reach no test")
    _save_sample(store)
    if not todo:
        print("nothing to run: every sampled mutant has a verdict (`--resume` re-runs the survivors)")
        return 0
    cmd = ["mutmut", "run", "--max-children", str(children), *todo]
    print("+", " ".join(cmd[:6]), f"... ({len(todo)} mutants)", flush=True)
    code = subprocess.call(cmd, cwd=ROOT)
    _save_sample(store)
    return code


def resume_survivors(names: list[str], codes: dict[str, int | None]) -> list[str]:
    """The sampled mutants to run again after new tests: the survivors not listed as equivalent (no test can kill
    them), and those no test reached (a new test may reach them now; the caller skips those still unreached)."""
    equivalent, _ = explained()
    return [k for k in names if codes.get(k) in SURVIVED | NO_TESTS and k not in equivalent]


def _save_sample(store: dict[str, dict[str, dict]]) -> None:
    """Write the sample file, recording the first verdict of every sampled mutant that has one now."""
    res = results(MUTANTS)
    for module, samples in store.items():
        codes = res.get(module, {})
        for entry in samples.values():
            first = entry.setdefault("first", {})
            for k in entry["names"]:
                if k not in first and codes.get(k) is not None:
                    first[k] = codes[k]
    (MUTANTS / SAMPLE).write_text(json.dumps(store, indent=1, ensure_ascii=False))


def results(folder: Path) -> dict[str, dict[str, int | None]]:
    """module -> {mutant name: exit code or None (not run)} from mutmut's .meta files under ``folder``."""
    out: dict[str, dict[str, int | None]] = {}
    for meta in sorted(folder.glob("sim/**/*.py.meta")):
        source = meta.relative_to(folder).with_suffix("")
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        out[module_of(str(source))] = codes
    return out


# --- explained survivors, each pinned to the mutant it explains -------------------------------------------------------


def path_of(module: str, folder: Path = ROOT) -> Path:
    """sim.phases.end -> folder/sim/phases/end.py (a package -> its __init__.py)."""
    base = folder.joinpath(*module.split("."))
    return base.with_suffix(".py") if base.with_suffix(".py").exists() else base / "__init__.py"


_PARSED: dict[Path, dict[str, str]] = {}


def _functions(source: Path) -> dict[str, str]:
    """Every function's source text in a module of mutmut's copy, by name (its mutants and ``..._mutmut_orig``)."""
    if source not in _PARSED:
        text = source.read_text()
        lines = text.splitlines()
        _PARSED[source] = {
            node.name: "\n".join(lines[node.lineno - 1 : node.end_lineno])
            for node in ast.walk(ast.parse(text))
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and "__mutmut_" in node.name
        }
    return _PARSED[source]


def fingerprint(name: str, folder: Path = MUTANTS) -> dict[str, str] | None:
    """What a mutant is, from mutmut's copy of its module: ``change``, the lines it changes (``- old / + new``), and
    ``source``, a hash of the original function. mutmut numbers a function's mutants from its source, so an entry
    of tools/mutation_survivors.toml holds both: a changed function (or a renumbered mutant) no longer matches.
    None when the copy has no such mutant."""
    function, _, k = name.rpartition("__mutmut_")
    module, _, mangled = function.rpartition(".")
    source = path_of(module, folder)
    if not source.exists():
        return None
    funcs = _functions(source)
    orig, mutant = funcs.get(f"{mangled}__mutmut_orig"), funcs.get(f"{mangled}__mutmut_{k}")
    if orig is None or mutant is None:
        return None
    a = orig.replace(f"{mangled}__mutmut_orig", mangled).splitlines()  # the def lines name the function alike
    b = mutant.replace(f"{mangled}__mutmut_{k}", mangled).splitlines()
    diff = [d for d in difflib.ndiff(a, b) if d[:2] in ("- ", "+ ")]
    change = " / ".join(f"{d[0]} {d[2:].strip()}" for d in diff)
    return {"change": change, "source": hashlib.sha1("\n".join(a).encode()).hexdigest()[:12]}


def _entries(folder: Path = MUTANTS) -> dict[str, dict[str, dict]]:
    data = tomllib.loads(SURVIVORS.read_text()) if SURVIVORS.exists() else {}
    return {kind: data.get(kind, {}) for kind in ("equivalent", "accepted")}


def stale(folder: Path = MUTANTS) -> list[tuple[str, str]]:
    """(name, why) of entries that no longer describe their mutant: no such mutant, another change, or the function
    changed since the entry was recorded. Entries of modules not in ``folder`` cannot be checked and are kept."""
    out = []
    for entries in _entries(folder).values():
        for name, entry in entries.items():
            module = name.rpartition("__mutmut_")[0].rpartition(".")[0]
            if not path_of(module, folder).exists():
                continue
            now = fingerprint(name, folder)
            if now is None:
                out.append((name, "no such mutant now"))
            elif not isinstance(entry, dict) or entry.get("source") != now["source"]:
                out.append((name, "its function changed since the entry was recorded"))
            elif entry.get("change") != now["change"]:
                out.append((name, f"the mutant is now: {now['change']}"))
    return out


def explained(folder: Path = MUTANTS) -> tuple[dict[str, str], dict[str, str]]:
    """(equivalent, accepted): mutant name -> reason, from tools/mutation_survivors.toml, without the stale entries
    (a stale entry explains nothing until it is checked and recorded again)."""
    gone = {name for name, _ in stale(folder)}
    kinds = _entries(folder)
    return tuple(
        {name: e["why"] if isinstance(e, dict) else e for name, e in kinds[kind].items() if name not in gone}
        for kind in ("equivalent", "accepted")
    )


def record(names: list[str], kind: str, why: str, folder: Path = MUTANTS) -> int:
    """Write (or rewrite) the entries of ``names`` in tools/mutation_survivors.toml's [equivalent] or [accepted]
    section, each with ``why`` and its fingerprint from mutmut's copy. One line per entry, the file's order kept."""
    lines = SURVIVORS.read_text().splitlines() if SURVIVORS.exists() else ["[equivalent]", "", "[accepted]"]
    new = []
    for name in names:
        fp = fingerprint(name, folder)
        if fp is None:
            print(f"{name}: no such mutant in {folder} (run it first)", file=sys.stderr)
            return 2
        value = ", ".join(f"{k} = {json.dumps(v, ensure_ascii=False)}" for k, v in (("why", why), *fp.items()))
        new.append(f"{json.dumps(name, ensure_ascii=False)} = {{ {value} }}")
    keys = {json.dumps(name, ensure_ascii=False) + " =" for name in names}
    lines = [ln for ln in lines if not any(ln.startswith(k) for k in keys)]
    head = lines.index(f"[{kind}]")
    end = next((i for i in range(head + 1, len(lines)) if lines[i].startswith("[")), len(lines))
    while end > head + 1 and not lines[end - 1].strip():
        end -= 1
    lines[end:end] = new
    SURVIVORS.write_text("\n".join(lines) + "\n")
    tomllib.loads(SURVIVORS.read_text())  # still valid
    print(f"{len(new)} {kind} entr{'y' if len(new) == 1 else 'ies'} recorded in {SURVIVORS.name}")
    return 0


def verdict(code: int | None) -> str:
    if code in KILLED:
        return "killed"
    if code in SURVIVED:
        return "survived"
    if code in NO_TESTS:
        return "no tests"
    return "not run" if code is None else "other"


def tally(codes: dict[str, int | None], equivalent: dict[str, str], accepted: dict[str, str]) -> dict[str, int]:
    """Counts of one module's (or one sample's) verdicts; `judged` = killed + lost - equivalent, where lost mutants are
    the survivors and those no test reaches."""
    c = Counter(verdict(v) for v in codes.values())
    lost = [k for k, v in codes.items() if v in SURVIVED or v in NO_TESTS]
    eq = sum(k in equivalent for k in lost)
    acc = sum(k in accepted for k in lost)
    return {
        "mutants": len(codes),
        "killed": c["killed"],
        "survived": c["survived"],
        "equivalent": eq,
        "accepted": acc,
        "no tests": c["no tests"],
        "not run": c["not run"],
        "judged": c["killed"] + len(lost) - eq,
    }


def estimate(t: dict[str, int]) -> str:
    """`score % [low-high]` of a sample's tally: killed / judged with its 95 % Wilson interval."""
    if not t["judged"]:
        return "-"
    low, high = wilson(t["killed"], t["judged"])
    return f"{100 * t['killed'] / t['judged']:.1f}% [{100 * low:.1f}-{100 * high:.1f}]"


def report(paths: list[str], folder: Path) -> int:
    wanted = {module_of(p) for p in paths}
    res = results(folder)
    if not res:
        print("no results: run `python tools/mutation.py run MODULE` first", file=sys.stderr)
        return 1
    equivalent, accepted = explained(folder)
    store = load_sample(folder)
    head = ("module", "mutants", "killed", "survived", "equiv.", "accepted", "no test", "not run", "score")
    print(f"{head[0]:<26}" + "".join(f"{h:>9}" for h in head[1:]))
    unexplained = []
    for module, codes in res.items():
        if (wanted and module not in wanted) or not codes:
            continue
        t = tally(codes, equivalent, accepted)
        lost = [k for k, v in codes.items() if v in SURVIVED or v in NO_TESTS]
        unexplained += [k for k in lost if k not in equivalent and k not in accepted]
        score = f"{100 * t['killed'] / t['judged']:.1f}%" if t["judged"] else "-"
        row = (t["mutants"], t["killed"], t["survived"], t["equivalent"], t["accepted"], t["no tests"], t["not run"])
        print(f"{module:<26}" + "".join(f"{x:>9}" for x in (*row, score)))
    seeds = sorted({s for m, samples in store.items() if m in res for s in samples}, key=int)
    for seed in seeds:
        sampled = [m for m in store if (not wanted or m in wanted) and m in res and seed in store[m]]
        print(f"\nsampled modules, seed {seed}: the score estimated from the sample alone (95 % Wilson interval);")
        print("`first` is the sample's score on its first verdicts, before tests written for its survivors")
        head = ("module", "sampled", "killed", "survived", "equiv.", "accepted", "no test", "not run")
        print(f"{head[0]:<26}" + "".join(f"{h:>9}" for h in head[1:]) + f"{'estimate':>23}{'first':>23}")
        weighted = {"now": [0.0, 0], "first": [0.0, 0]}  # sum of population x score, sum of population
        for module in sampled:
            entry = store[module][seed]
            codes = {k: res[module].get(k) for k in entry["names"]}
            t = tally(codes, equivalent, accepted)
            f = tally({k: entry.get("first", {}).get(k) for k in entry["names"]}, equivalent, accepted)
            size = f"{len(codes)}/{len(res[module])}"
            row = (size, t["killed"], t["survived"], t["equivalent"], t["accepted"], t["no tests"], t["not run"])
            print(f"{module:<26}" + "".join(f"{x:>9}" for x in row) + f"{estimate(t):>23}{estimate(f):>23}")
            for key, x in (("now", t), ("first", f)):
                if x["judged"]:
                    weighted[key][0] += len(res[module]) * x["killed"] / x["judged"]
                    weighted[key][1] += len(res[module])
        cells = [f"{100 * s / n:.1f}%" if n else "-" for s, n in weighted.values()]
        print(f"{'all (weighted by mutants)':<26}" + " " * 72 + "".join(f"{c:>23}" for c in cells))
    if unexplained:
        print("\nsurvivors not yet explained in tools/mutation_survivors.toml (`mutmut show NAME` prints the diff):")
        print("\n".join(f"  {name}" for name in unexplained))
    old = [(name, why) for name, why in stale(folder) if not wanted or name.rpartition(".x")[0] in wanted]
    if old:
        print(
            f"\n{len(old)} entries of tools/mutation_survivors.toml are stale (they explain nothing until checked and"
        )
        print("recorded again: `python tools/mutation.py record --equivalent WHY NAME`):")
        print("\n".join(f"  {name}: {why}" for name, why in old))
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
    r.add_argument("--sample", type=int, metavar="N", help="run a seeded random sample of N mutants per module")
    r.add_argument("--seed", type=int, default=1, help="the sample's seed (with --sample; default 1)")
    rep = sub.add_parser("report", help="score per module and the surviving mutants")
    rep.add_argument("paths", nargs="*", help="module files (default: every module with results)")
    rep.add_argument("--results", type=Path, default=MUTANTS, help="a copy of mutants/ (its .meta files) to read")
    rec = sub.add_parser("record", help="explain survivors in tools/mutation_survivors.toml, pinned to their mutant")
    rec.add_argument("names", nargs="+", help="mutant names, e.g. sim.reduce.x_any_last__mutmut_39")
    kind = rec.add_mutually_exclusive_group(required=True)
    kind.add_argument("--equivalent", metavar="WHY", help="no test can tell it apart: the reason")
    kind.add_argument("--accepted", metavar="WHY", help="a survivor kept for now: the reason and what would kill it")
    args = p.parse_args(argv)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `report | head` stops quietly
    if args.cmd == "run":
        return run(args.paths, args.children, args.resume, args.sample, args.seed)
    if args.cmd == "record":
        kind = "equivalent" if args.equivalent else "accepted"
        return record(args.names, kind, args.equivalent or args.accepted)
    return report(args.paths, args.results)


if __name__ == "__main__":
    sys.exit(main())
