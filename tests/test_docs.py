"""The README and the pages of ``docs/`` say what the commands do: every command in a ``sh`` block runs, in the
page's order, in a scratch folder holding the repository's ``experiments/`` and ``examples/`` (fewer games, trials
and samples than written, a metagame of two strategies, and no report but the baseline's and those `eastindia report`
writes, so that the suite stays fast); the few that need what a
test machine has not are listed with the reason. Each page's links to files of the repository resolve."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

# Commands a test machine cannot run, by their first words, and why.
NOT_RUN = {
    "pip install": "installs: the set-up commands are what .ci/run itself runs",
    "dask ": "starts a cluster's scheduler or workers (the Dask path is tested against a LocalCluster)",
    "eastindia run experiments/library/capital_formulas.toml --games 1000000 --backend dask": "needs that cluster",
    "python tools/mutation.py": "mutation testing takes hours (tests/test_mutation_tool.py tests the tool)",
    "mutmut ": "reads the results of a mutation run",
}
# Fewer games than written: the command's meaning is kept, its size is not.
SMALL = {"--games": "20", "--shard-size": "10", "--trials": "2", "--samples": "2"}
SIZED = {"run": ("--games", "--shard-size"), "tune": ("--games", "--shard-size", "--trials")}
SIZED |= {"sensitivity": ("--games", "--shard-size", "--samples"), "metagame": ("--games", "--shard-size")}
SIZED |= {"audit": ("--games",)}  # the games of a run played with SMALL's


def commands(page: Path) -> list[str]:
    """The shell commands of a page's ``sh`` blocks, comments dropped and continued lines joined."""
    out, block = [], False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            block = line.strip() == "```sh"
            continue
        if block:
            out.append(line)
    joined = re.sub(r"\s*\\\n\s*", " ", "\n".join(out))
    return [c for c in (re.sub(r"\s+#.*$", "", line).strip() for line in joined.splitlines()) if c]


def smaller(command: str) -> str:
    """``command`` with the sizes of SMALL (a study extended by ``--trials`` or a run by ``--games`` with ``--resume``
    gets half as many again)."""
    words = shlex.split(command.split(">")[0])
    if len(words) < 2 or words[0] != "eastindia" or words[1] not in SIZED:
        return command
    if words[1] == "metagame" and "--strategy" not in words:  # 126 tables of 5 strategies: 2 strategies make 6
        words += ["--strategy", "balanced", "--strategy", "random"]
    reports = words[1] != "audit" and words[1:] != ["run"]  # `eastindia report` and the first run write reports
    if "--no-report" not in words and reports:
        words.append("--no-report")
    for option in SIZED[words[1]]:
        value = SMALL[option]
        if option in words:
            i = words.index(option)
            more = option == "--trials" or (option == "--games" and "--resume" in words)  # extends a finished one
            words[i + 1] = str(int(value) * 3 // 2) if more else value
        else:
            words += [option, value]
    return shlex.join(words)


def skipped(command: str) -> str | None:
    return next((why for start, why in NOT_RUN.items() if command.startswith(start)), None)


def scratch(where: Path) -> Path:
    """A folder holding copies of the repository's experiment files and examples, and ``my.toml`` (the baseline
    experiment under another name: the pages' example of a user's own file)."""
    for folder in ("experiments", "examples"):
        shutil.copytree(ROOT / folder, where / folder, ignore=shutil.ignore_patterns("__pycache__", "*.py[co]"))
    for study in (where / "experiments" / "library").glob("*.toml"):  # a study's confirmation has no option: cut here
        text = study.read_text(encoding="utf-8")
        study.write_text(re.sub(r"(?m)^confirm_games = \d+", "confirm_games = 40", text), encoding="utf-8")
    base = (ROOT / "experiments/library/baseline.toml").read_text(encoding="utf-8")
    mine = re.sub(r"(?m)^name = .*$", 'name = "my"\ncalibration_games = 20  # its pilot whatever --games', base)
    (where / "my.toml").write_text(mine, encoding="utf-8")
    return where


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_command_of_the_page_runs(page, tmp_path):
    """The README's commands run as a user runs them, the built-ins' answers unchecked (the suite's
    EASTINDIA_CHECK_BUILTINS left out: the path no other test takes end to end); the other pages' with the checks."""
    found = commands(page)
    env = dict(os.environ)
    if page.name == "README.md":
        assert any(c.startswith("eastindia run") for c in found), "the README shows how to run"
        env.pop("EASTINDIA_CHECK_BUILTINS", None)
    run = scratch(tmp_path)
    shell = f'eastindia() {{ {shlex.quote(sys.executable)} -m experiments.cli "$@"; }}\n'
    for command in found:
        if skipped(command):
            continue
        done = subprocess.run(
            ["bash", "-c", shell + smaller(command)], cwd=run, capture_output=True, text=True, timeout=600, env=env
        )
        assert done.returncode == 0, f"{page.name}: `{command}` exited {done.returncode}: {done.stderr[-800:]}"


def test_what_is_not_run_is_written_in_the_docs():
    """Every exception of NOT_RUN matches a command the pages show (no stale excuse), and nothing else is left out."""
    every = [c for page in PAGES for c in commands(page)]
    for start in NOT_RUN:
        assert any(c.startswith(start) for c in every), f"no command starts with {start!r} any more"


def test_the_sizes_are_cut_and_an_extension_gets_more():
    assert smaller("eastindia run my.toml --games 1000000 --jobs 2") == (
        "eastindia run my.toml --games 20 --jobs 2 --no-report --shard-size 10"
    )
    assert smaller("eastindia tune t.toml --resume --trials 80").endswith(
        "--trials 3 --no-report --games 20 --shard-size 10"
    )
    assert smaller("eastindia run my.toml --games 50000 --resume") == (
        "eastindia run my.toml --games 30 --resume --no-report --shard-size 10"
    )
    assert smaller("eastindia run") == "eastindia run --games 20 --shard-size 10"
    assert smaller("eastindia audit runs/x --decision plan --round 1 --games 400") == (
        "eastindia audit runs/x --decision plan --round 1 --games 20"
    )
    assert smaller("eastindia capital 50 35 20 0 0") == "eastindia capital 50 35 20 0 0"
    assert smaller("eastindia metagame m.toml") == (
        "eastindia metagame m.toml --strategy balanced --strategy random --no-report --games 20 --shard-size 10"
    )


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_the_page_links_only_files_of_the_repository(page):
    text = page.read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if target.startswith(("http://", "https://")):
            continue
        assert (page.parent / target).resolve().exists(), f"{page.name} links {target}, which is not in the repo"


def test_code_comments_and_docs_cite_rules_not_issue_numbers():
    """A user cannot look an issue number up: code, comments, tests and docs cite rule ids, seed lines and topics."""
    cited = re.compile(r"\b[Ii]ssues? #?\d")
    found = []
    for folder in ("sim", "strategies", "experiments", "reports", "tests", "tools", "docs", "examples"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in {".py", ".md", ".toml"} and "__pycache__" not in path.parts:
                lines = path.read_text(encoding="utf-8").splitlines()
                found += [f"{path.relative_to(ROOT)}:{i}" for i, line in enumerate(lines, 1) if cited.search(line)]
    for path in (ROOT / "README.md", ROOT / "pyproject.toml"):
        found += [f"{path.name}:{i}" for i, line in enumerate(path.read_text().splitlines(), 1) if cited.search(line)]
    assert not found, f"issue numbers cited at {found[:10]}"


# A seed line: `L123` (line 123 of seed 000, the rulebook) or a range `L196–L197`; `seed 001 L85` names its seed.
SEED_LINE = re.compile(r"(?<![\w-])L(\d{1,4})(?:\s*[–-]\s*L\d{1,4})?\b")
OTHER_SEED = re.compile(r"\bseed 00[1-9]\b", re.IGNORECASE)
NAMED = re.compile(r"\bseed \d{3} $", re.IGNORECASE)  # just before a line: it names its seed
# between two lines of one list ("seed 000 L86–L106 (phase 3), L154 and L175–L182"): the first's seed goes on
LISTED = re.compile(r"[\s,–/-]*(?:(?:and|or|to|with)\s+)?(?:\([^()\"]{0,40}\)[\s,]*(?:(?:and|or)\s+)?)?")
RULEBOOK_LINES = 261  # seed 000's length: a bare line above it cannot be the rulebook's
# the deal protocol (R-NOTE, D-DEALS, D-OFFER-LIMIT) rests on seed 001 L81–L87, where the rulebook has phase 2's
# actions: a bare line of those numbers beside a deal, an offer or a note is seed 001's, cited without its seed
DEAL_LINES, DEAL_WORDS = range(81, 88), re.compile(r"\b(?:deals?|offer\w*|notes?|R-NOTE|D-DEALS|D-OFFER-LIMIT)\b")


def citation_units(path: Path) -> list[tuple[int, str]]:
    """(first line, text) of each place a citation's seed must be read from: a comment (its consecutive lines) or a
    paragraph of a string in Python, a comment block in TOML, a paragraph, bullet, heading or table row of a page."""
    import io
    import tokenize

    text = path.read_text(encoding="utf-8")
    units: list[tuple[int, str]] = []
    if path.suffix == ".py":
        comment_at = -1
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                if units and tok.start[0] == comment_at + 1 and units[-1][1].startswith("#"):
                    units[-1] = (units[-1][0], f"{units[-1][1]} {tok.string}")
                else:
                    units.append((tok.start[0], tok.string))
                comment_at = tok.start[0]
            elif tok.type == tokenize.STRING:
                line = tok.start[0]
                for para in re.split(r"\n\s*\n", tok.string):
                    units.append((line, para))
                    line += para.count("\n") + 2
        return units
    starts = ("- ", "* ", "#", "|") if path.suffix == ".md" else ()
    for i, line in enumerate(text.splitlines(), 1):
        if path.suffix == ".toml" and "#" not in line:
            units.append((i, ""))
            continue
        piece = line[line.index("#") :] if path.suffix == ".toml" else line
        new = not line.strip() or line.lstrip().startswith(starts) or re.match(r"\s*\d+\. ", line)
        if path.suffix == ".toml":
            new = not line.lstrip().startswith("#") or not units or not units[-1][1]
        if new or not units:
            units.append((i, piece.strip()))
        else:
            units[-1] = (units[-1][0], f"{units[-1][1]} {piece.strip()}")
    return [u for u in units if u[1]]


def unnamed_seed_lines(unit: str) -> list[str]:
    """The lines cited in ``unit`` that do not name their seed where they must: every line of a unit that cites
    another seed than the rulebook, and a line the rulebook does not have anywhere."""
    other = bool(OTHER_SEED.search(unit)) and not re.search(r"a bare `?L123", unit, re.IGNORECASE)  # the convention
    deals = bool(DEAL_WORDS.search(unit))
    out, after = [], None
    for m in SEED_LINE.finditer(unit):
        if NAMED.search(unit[max(0, m.start() - 9) : m.start()]) or (
            after is not None and LISTED.fullmatch(unit[after : m.start()])
        ):
            after = m.end()
            continue
        after = None
        if other or int(m[1]) > RULEBOOK_LINES or (deals and int(m[1]) in DEAL_LINES):
            out.append(m[0])
    return out


def test_a_seed_line_cited_beside_another_seed_names_its_seed():
    """docs/rules.md, "Seed lines": a bare `L123` is line 123 of seed 000, the rulebook; a comment, docstring
    paragraph or page paragraph that cites another seed as well names every line's seed (`seed 000 L56 with seed
    001 L85`, not `L56 with L85`); a bare L81–L87 beside a deal, an offer or a note (seed 001's deal protocol) and a
    bare line beyond the rulebook's 261 are another seed's too."""
    found = []
    for folder in ("sim", "strategies", "experiments", "reports", "tests", "docs"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in {".py", ".md", ".toml"} and "__pycache__" not in path.parts and path != Path(__file__):
                for line, unit in citation_units(path):
                    if bare := unnamed_seed_lines(unit):
                        found.append(f"{path.relative_to(ROOT)}:{line} {bare}")
    for line, unit in citation_units(ROOT / "README.md"):
        if bare := unnamed_seed_lines(unit):
            found.append(f"README.md:{line} {bare}")
    assert not found, "seed lines that do not name their seed:\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("text", "unnamed"),
    [
        ('"""L56 with L85: a family offers no more than it has (seed 001)."""', ["L56", "L85"]),
        ('"""L56 with L85: a family offers in all no more than it has."""', ["L85"]),  # L85 of a deal: seed 001's
        ('"""L83: the Chairman ranks the families buying positions on the exchange."""', []),  # the rulebook's L83
        ('"""seed 000 L56 with seed 001 L85: a family offers no more than it has."""', []),
        ('"""R-FIRMS, seed 000 L86–L106 (phase 3), L154 and L175–L182; seed 002 for jc2e."""', []),
        ('"""R-FIRMS, L86–L106 (phase 3); seed 002 for jc2e."""', ["L86–L106"]),
        ('"""L130: the chair counts as one share."""', []),  # a bare line is the rulebook's
        ('"""L300: beyond the rulebook."""', ["L300"]),
        ("x = 1  # L224 beside seed 001 L85\n", ["L224"]),
    ],
)
def test_the_seed_line_check_finds_a_line_that_does_not_name_its_seed(tmp_path, text, unnamed):
    path = tmp_path / "cited.py"
    path.write_text(text)
    assert [line for _, unit in citation_units(path) for line in unnamed_seed_lines(unit)] == unnamed
