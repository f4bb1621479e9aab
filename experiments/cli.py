"""The ``eastindia`` command: run experiments, compute starting capital, list strategies, validate files.

Every error is one line on stderr: exit code 2 for the user's errors (a malformed or unreadable file,
an unknown key or strategy, a bad option, a plugin that cannot load (whatever it raises, ``KeyboardInterrupt``
included, or an import longer than ``--plugin-timeout``), a run folder's plugin without ``--allow-plugins`` or changed
since the run, a malformed run.json, an output folder in use or holding something else, a strategy's illegal answer
or exception, a disk that cannot take the results), 3 when a worker process
died or exited by itself or a shard exceeded ``--timeout``, 130 on Ctrl-C (SIGINT), 143 on SIGTERM, 1 for a failure
of the simulator itself. ``--debug`` adds the full traceback.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import shlex
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import numpy as np

import strategies as registry
from sim import capital
from sim.agents import IllegalDecision, StrategyError
from sim.engine import PlayError
from sim.rules import DEFAULT_PATH, Rules, RulesError
from sim.rules.schema import NUMBER_MAX

from . import runfolder as rf
from . import runmeta, runner, search, spec
from .audit import DECISIONS as AUDITABLE
from .runfolder import Run
from .runner import one_line

if TYPE_CHECKING:  # for annotations only: the reports are imported inside the commands (below)
    from reports.data import Aggregates

# The reports and the studies (reports, .tune, .sensitivity, .metagame, .respond) are imported inside the commands
# that use them: reports loads matplotlib, altair and scipy, a cost --help and the light commands (capital,
# strategies, rules, validate) would otherwise pay at every start. tests/test_cli.py checks that importing this
# module, --help and the light commands load none of matplotlib, altair, scipy, statsmodels and pandas.

USER_ERRORS = (
    RulesError,
    spec.ExperimentError,
    spec.PluginError,
    runner.RunError,
    rf.LinkRefused,
    registry.UnknownStrategy,
    PlayError,
    IllegalDecision,
    StrategyError,
)
EXIT_BUG, EXIT_USER, EXIT_INTERRUPTED, EXIT_FAILED = 1, 2, 130, 3


class UsageError(Exception):
    """A malformed command line (argparse's complaint, made one line)."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line instead of argparse's usage block
        raise UsageError(f"{self.prog}: {message} (see {self.prog} --help)")


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except UsageError as err:
        print(f"eastindia: error: {one_line(str(err))}", file=sys.stderr)
        return EXIT_USER
    args.argv = argv
    spec.plugin_timeout = plugin_timeout(args)
    try:
        with runner.catch_signals(), runner.exits_refused():
            return args.func(args)
    except USER_ERRORS as err:
        return _report(args, err, f"error: {err}", EXIT_USER)
    except runner.Interrupted as err:
        interrupted = str(err).startswith("interrupted")
        return _report(args, err, str(err), err.code or (runner.signal_code() if interrupted else EXIT_FAILED))
    except runner.WorkerFailed as err:
        return _report(args, err, f"error: {err}", EXIT_FAILED)
    except KeyboardInterrupt:
        print("eastindia: interrupted", file=sys.stderr)
        return runner.signal_code()
    except Exception as err:  # a failure of the simulator itself: still one line, the traceback under --debug
        what = str(err) if isinstance(err, runner.ShardFailed) else f"{type(err).__name__}: {runner._one_line(err)}"
        hint = "" if args.debug else " (run again with --debug for the traceback)"
        return _report(args, err, f"internal error: {what}{hint}", EXIT_BUG)


def _report(args: argparse.Namespace, err: BaseException, line: str, code: int) -> int:
    """One line on stderr; under --debug the whole traceback first (a worker's own, when it sent one)."""
    if args.debug:
        details = getattr(err, "details", "")
        sys.stderr.write(details or "".join(traceback.format_exception(err)))
    print(f"eastindia: {one_line(line)}", file=sys.stderr)
    return code


def _version() -> str:
    """The installed package's version (the project's own when run from a checkout that is not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("eastindia")
    except PackageNotFoundError:
        return "unknown (not installed)"


LOADING = "loading the reporting libraries (matplotlib, scipy, altair)"
QUIET_STEPS = "no progress on stderr (the step it is on, charts or games done, rate and time left)"
NO_CALIBRATE = "play the strategies' fixed learned values (crash model, ...), not values fitted to each arm's rules"


def seconds(text: str) -> float:
    """A positive, finite number of seconds (argparse's type)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text!r}")
    return value


def plugin_timeout(args: argparse.Namespace) -> float:
    """The seconds a plugin may take to import: --plugin-timeout, else run's --timeout, else the default."""
    given = getattr(args, "plugin_timeout", None)
    timeout = getattr(args, "timeout", None)
    if given is None and isinstance(timeout, int | float) and 0 < timeout < float("inf"):
        given = timeout
    return spec.PLUGIN_TIMEOUT_S if given is None else given


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--debug", action="store_true", help="show the full traceback of an error")
    # every command that imports plugins (strategy classes from .py files)
    loads = argparse.ArgumentParser(add_help=False, parents=[common])
    loads.add_argument(
        "--plugin-timeout",
        type=seconds,
        metavar="SECONDS",
        help=f"fail when a plugin takes longer to import (default: run's --timeout, else {spec.PLUGIN_TIMEOUT_S:g})",
    )
    trust = argparse.ArgumentParser(add_help=False)
    trust.add_argument(
        "--allow-plugins",
        action="store_true",
        help="import the plugins the run folder names (code: only for a folder you trust), if their files are "
        "unchanged since the run (SHA-256 in run.json)",
    )
    p = Parser(prog="eastindia", description="Corruption & East India balance simulator.")
    p.add_argument("--version", action="version", version=f"eastindia {_version()}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser)

    r = sub.add_parser("run", help="run an experiment file (default: the baseline)", parents=[loads])
    r.add_argument("file", nargs="?", help="experiment TOML (default: experiments/library/baseline.toml)")
    r.add_argument("--games", type=int, help="games per arm (overrides the file)")
    r.add_argument("--seed", type=int, help="master seed (overrides the file)")
    r.add_argument("--jobs", type=int, help="worker processes (default: all cores)")
    r.add_argument("--out", help="run folder (default: runs/<experiment name>)")
    r.add_argument("--resume", action="store_true", help="finish an interrupted or failed run in --out")
    r.add_argument("--fresh", action="store_true", help="move an existing run folder aside and start afresh")
    r.add_argument("--shard-size", type=int, help="games per shard (overrides the file)")
    r.add_argument(
        "--timeout",
        type=float,
        metavar="SECONDS",
        help="fail the run when a shard, or a plugin's import, takes longer (a strategy may hang; default: no limit "
        f"for a shard, {spec.PLUGIN_TIMEOUT_S:g} s for an import)",
    )
    r.add_argument(
        "--strategy",
        action="append",
        metavar="NAME[:k=v,..]|path.py:Class[:k=v,..]",
        help="strategies to rotate (repeat); parameters after a colon, e.g. bid_low:max_bid=2",
    )
    r.add_argument(
        "--target-ci",
        type=float,
        metavar="HALF_WIDTH",
        help="play until every headline 95%% interval is within +-HALF_WIDTH (e.g. 0.01); --games is the maximum",
    )
    r.add_argument(
        "--reference",
        metavar="ARM",
        help="the arm (name or index) the report compares the others with (default: the run's, else the arm with the "
        "experiment's own rules, else the first); kept in run.json",
    )
    r.add_argument("--no-calibrate", action="store_true", help=NO_CALIBRATE)
    r.add_argument("--backend", default="loky", choices=["loky", "dask", "ray"], help="joblib backend")
    r.add_argument("--scheduler", help="dask scheduler address (tcp://host:8786) or ray address")
    r.add_argument("--quiet", action="store_true", help="no progress bar, nor the report's steps")
    r.add_argument("--no-report", action="store_true", help="skip report.html")
    r.set_defaults(func=cmd_run)

    c = sub.add_parser("capital", help="starting capital from bid totals (R-CAPITAL)", parents=[common])
    c.add_argument("bids", nargs="+", type=int, help="each family's bid total")
    c.add_argument("--players", type=int, help="players (default: the number of bids)")
    c.add_argument("--formula", help=f"capital formula ({', '.join(sorted(capital.FORMULAS))})")
    c.add_argument(
        "--budget",
        type=int,
        help="starting capital per player, the rules key capital.budget_per_player (default: 6; B = budget x players)",
    )
    c.set_defaults(func=cmd_capital)

    s = sub.add_parser("strategies", help="registered strategies and their parameters", parents=[loads])
    s.add_argument("--strategy", action="append", metavar="path.py:Class", help="also load a plugin (repeat)")
    s.set_defaults(func=cmd_strategies)

    v = sub.add_parser("validate", help="check an experiment or rules file and report every problem", parents=[loads])
    v.add_argument("file")
    v.set_defaults(func=cmd_validate)

    u = sub.add_parser("rules", help="the default rules file", parents=[common])
    u.add_argument("--dump", action="store_true", help="print the whole file to copy and edit")
    u.set_defaults(func=cmd_rules)

    rep = sub.add_parser("report", help="write report.html and summary.md for a run folder", parents=[common])
    rep.add_argument("run_dir")
    rep.add_argument(
        "--reference", metavar="ARM", help="the arm (name or index) to compare the others with, kept in run.json"
    )
    rep.add_argument("--quiet", action="store_true", help=QUIET_STEPS)
    rep.set_defaults(func=cmd_report)

    rp = sub.add_parser(
        "replay", help="replay one game of a run with a trace (.jsonl and .html)", parents=[loads, trust]
    )
    rp.add_argument("run_dir")
    rp.add_argument("--game", type=int, required=True, help="the game's index in the run")
    rp.add_argument("--arm", help="the arm (required when the run has several)")
    rp.set_defaults(func=cmd_replay)

    au = sub.add_parser(
        "audit",
        help="play a run's games again with one decision forced to each alternative (common random numbers)",
        parents=[loads, trust],
    )
    au.add_argument("run_dir")
    au.add_argument("--decision", required=True, help="the decision to force: " + ", ".join(AUDITABLE))
    au.add_argument("--round", type=int, required=True, dest="round_", metavar="R", help="the round (0: setup)")
    au.add_argument("--arm", help="the arm (required when the run has several)")
    au.add_argument("--strategy", help="only the seats of this strategy (its label in the run)")
    au.add_argument("--values", help="the alternatives, comma-separated (default: the decision's own list)")
    au.add_argument("--games", type=int, help="the run's first N games only (default: all)")
    au.add_argument("--quiet", action="store_true", help=QUIET_STEPS)
    au.set_defaults(func=cmd_audit)

    pa = sub.add_parser(
        "pair", help="each seat of one arm against the same seat of another arm, game by game", parents=[common]
    )
    pa.add_argument("run_dir")
    pa.add_argument("--arm", required=True, help="the arm whose seats are compared (name or index)")
    pa.add_argument("--against", required=True, help="the arm they are compared with (name or index)")
    pa.set_defaults(func=cmd_pair)

    x = sub.add_parser("export", help="write a finished run's frames as CSV files (for spreadsheets)", parents=[common])
    x.add_argument("run_dir")
    x.add_argument("--format", choices=["csv"], required=True, help="the files' format")
    x.add_argument("--out", help="folder for the files (default: RUN_DIR/csv)")
    x.set_defaults(func=cmd_export)

    cmp_ = sub.add_parser(
        "compare", help="compare two run folders arm by arm (paired where they share games)", parents=[common]
    )
    cmp_.add_argument("run_a", help="the reference run folder (A)")
    cmp_.add_argument("run_b", help="the run folder compared with it (B)")
    cmp_.add_argument("--out", help="also write the comparisons to this Parquet file")
    cmp_.add_argument(
        "--unpaired", action="store_true", help="compare as independent samples (needed for other player counts)"
    )
    cmp_.add_argument(
        "--arm",
        metavar="NAME_OR_INDEX",
        help="pair this arm of the run with several arms with the other run's arm (needed when no name matches)",
    )
    cmp_.add_argument("--quiet", action="store_true", help=QUIET_STEPS)
    cmp_.set_defaults(func=cmd_compare)

    # tune and sensitivity
    for name, helptext in (
        ("tune", "tune rules values to a target with Optuna (the file's [tune] section)"),
        ("sensitivity", "rank which rules values move the results (the file's [sensitivity] section, SALib)"),
    ):
        t = sub.add_parser(name, help=helptext, parents=[loads])
        t.add_argument("file", help=f"experiment TOML with a [{name}] section")
        if name == "tune":
            t.add_argument("--trials", type=int, help="trials in all (overrides the file; more continue a study)")
        else:
            t.add_argument("--samples", type=int, help="Morris trajectories or Sobol base samples (overrides the file)")
        t.add_argument("--games", type=int, help="games per trial / per point (overrides the file)")
        t.add_argument("--seed", type=int, help="master seed of the games (overrides the file)")
        t.add_argument("--jobs", type=int, help="worker processes (default: all cores)")
        t.add_argument("--out", help="study folder (default: runs/<experiment name>)")
        t.add_argument("--resume", action="store_true", help="continue an interrupted or finished study in --out")
        t.add_argument("--fresh", action="store_true", help="move an existing study folder aside and start afresh")
        t.add_argument("--shard-size", type=int, help="games per shard (overrides the file)")
        t.add_argument(
            "--strategy",
            action="append",
            metavar="NAME[:k=v,..]|path.py:Class[:k=v,..]",
            help="strategies to rotate (repeat; overrides the file)",
        )
        t.add_argument("--quiet", action="store_true", help="no progress bar, nor the report's steps")
        t.add_argument("--no-calibrate", action="store_true", help=NO_CALIBRATE)
        t.add_argument("--no-report", action="store_true", help="skip report.html")
        t.set_defaults(func=cmd_tune if name == "tune" else cmd_sensitivity)

    m = sub.add_parser(
        "metagame", help="every seating of the strategies and its equilibria ([metagame])", parents=[loads]
    )
    m.add_argument("file", help="experiment TOML with a [metagame] section")
    m.add_argument("--games", type=int, help="games per table (overrides the file)")
    m.add_argument("--seed", type=int, help="master seed of the games (overrides the file)")
    m.add_argument("--jobs", type=int, help="worker processes (default: all cores)")
    m.add_argument("--out", help="metagame folder (default: runs/<experiment name>)")
    m.add_argument("--resume", action="store_true", help="continue an interrupted metagame in --out")
    m.add_argument("--fresh", action="store_true", help="move an existing metagame folder aside and start afresh")
    m.add_argument("--shard-size", type=int, help="games per shard (overrides the file)")
    m.add_argument(
        "--strategy", action="append", metavar="NAME[:k=v,..]", help="strategies (repeat; overrides the file)"
    )
    m.add_argument("--quiet", action="store_true", help="no progress bar, nor the report's steps")
    m.add_argument("--no-report", action="store_true", help="skip report.html")
    m.add_argument("--no-calibrate", action="store_true", help=NO_CALIBRATE)
    m.set_defaults(func=cmd_metagame)

    rs = sub.add_parser(
        "respond", help="iterate the strategies' best responses until they settle ([respond])", parents=[loads]
    )
    rs.add_argument("file", help="experiment TOML with a [respond] section")
    rs.add_argument("--rounds", type=int, help="the round cap (overrides the file)")
    rs.add_argument("--trials", type=int, help="trials per response (overrides the file)")
    rs.add_argument("--games", type=int, help="games per trial (overrides the file)")
    rs.add_argument("--seed", type=int, help="master seed of the games (overrides the file)")
    rs.add_argument("--jobs", type=int, help="worker processes (default: all cores)")
    rs.add_argument("--out", help="respond folder (default: runs/<experiment name>)")
    rs.add_argument("--resume", action="store_true", help="continue an interrupted respond study in --out")
    rs.add_argument("--fresh", action="store_true", help="move an existing respond folder aside and start afresh")
    rs.add_argument("--shard-size", type=int, help="games per shard (overrides the file)")
    rs.add_argument(
        "--strategy", action="append", metavar="NAME[:k=v,..]", help="strategies (repeat; overrides the file)"
    )
    rs.add_argument("--quiet", action="store_true", help="no progress bar, nor the report's steps")
    rs.add_argument("--no-calibrate", action="store_true", help=NO_CALIBRATE)
    rs.add_argument("--no-report", action="store_true", help="skip report.html")
    rs.set_defaults(func=cmd_respond)
    return p


# ------------------------------------------------------------------------------------------------------ run
def cmd_run(args: argparse.Namespace) -> int:
    changes = {"games": args.games, "seed": args.seed, "target_ci": args.target_ci, "reference": args.reference}
    changes["calibrate"] = False if args.no_calibrate else None
    if args.strategy:
        changes["strategies"] = args.strategy
    exp = spec.load(args.file, **changes)
    out = Path(args.out) if args.out else runner.default_out(exp)
    command = "eastindia " + " ".join(shlex.quote(a) for a in args.argv if a != "--debug")
    runner.check_options(
        args.jobs, args.shard_size, args.backend, args.scheduler, args.resume, args.fresh, args.timeout
    )
    if args.scheduler:
        check_scheduler(args.scheduler, args.backend)
    progress = None if args.quiet else RichProgress(exp)
    with progress or _Null():
        meta = runner.run(
            exp,
            out,
            jobs=args.jobs,
            resume=args.resume,
            shard_size=args.shard_size,
            backend=args.backend,
            scheduler=args.scheduler,
            command=command,
            progress=progress,
            fresh=args.fresh,
            notify=progress.note if progress else None,
            timeout=args.timeout,
        )
    if args.reference:  # the command line's choice; else the one run.json keeps (a report's choice included)
        runner.set_reference(out, exp.reference)
    drawn: list = []  # the aggregates the report was drawn from: the summary below is printed from them
    if not args.no_report:
        progress = steps(args, "report")
        try:
            with progress or _Null():
                if progress:
                    progress(LOADING)  # the run's results are there: no input left to refuse
                from reports import write_report

                write_report(out, progress=progress, drawn=drawn.append)
        except OSError as err:  # the results are safe; only the report is missing
            raise runner.RunError(
                f"{out}: the results are complete but the report could not be written ({err.strerror or err}); "
                f"write it with: eastindia report {shlex.quote(str(out))}"
            ) from None
        except KeyboardInterrupt:
            raise runner.Interrupted(
                f"interrupted while writing the report: the results in {out} are complete; "
                f"write it with: eastindia report {shlex.quote(str(out))}",
                0,
                0,
                runner.signal_code(),
            ) from None
    print(f"results: {out}  ({meta.get('games', 0)} games, {meta.get('games_per_s')} games/s)")
    print_summary(drawn[0] if drawn else Run.open(out))
    return 0


SCHEDULER_TIMEOUT_S = 20  # to connect to a dask scheduler and exchange the handshake


def is_loopback(address: str) -> bool:
    """Is a ``--scheduler`` address on this machine's loopback interface (``tcp://127.0.0.1:8786``, ``localhost:8786``,
    ``[::1]:8786``, Dask's ``inproc://``, Ray's ``auto``)? Judged from the text alone: no name is looked up."""
    scheme, sep, _ = address.partition("://")
    if sep and scheme.lower() == "inproc":
        return True
    try:
        host = (urlsplit(address if sep else f"tcp://{address}").hostname or "").rstrip(".")
    except ValueError:
        return False
    if host in ("localhost", "auto", "local") or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_scheduler(address: str, backend: str) -> None:
    """Before the run: warn when the scheduler is not on this machine (the cluster runs what it is sent, pickled),
    then, for Dask, shake hands with it so that something else listening there (an HTTP server, such as the
    scheduler's dashboard) is one line rather than the ``MemoryError`` of a reply read as a frame length."""
    if not is_loopback(address):
        print(
            f"eastindia: warning: --scheduler {address} is not on this machine: {backend.capitalize()} exchanges "
            "pickled Python objects with it, which run as code; use only a cluster you control",
            file=sys.stderr,
        )
    if backend != "dask":
        return
    import asyncio

    from distributed.comm import connect

    async def handshake() -> None:
        comm = await connect(address, timeout=SCHEDULER_TIMEOUT_S)
        await comm.close()

    try:
        asyncio.run(asyncio.wait_for(handshake(), SCHEDULER_TIMEOUT_S))  # Dask bounds the connection, not the reply
    except MemoryError:  # the length prefix of a Dask message was something else's reply
        raise runner.RunError(
            f"--scheduler {address}: what answers there is not a dask scheduler (a web server? the dashboard's port?)"
        ) from None
    except TimeoutError:
        raise runner.RunError(
            f"--scheduler {address}: cannot reach the dask scheduler: no handshake within {SCHEDULER_TIMEOUT_S} s"
        ) from None
    except (OSError, ValueError) as exc:
        raise runner.RunError(f"--scheduler {address}: cannot reach the dask scheduler: {one_line(str(exc))}") from None


class _Null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def live_bars(console: Any, transient: bool) -> Any:
    """The live lines of a terminal (rich): a description, a bar, done/total and a ``rate`` field per task;
    ``transient``: erased when the command ends."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    return Progress(
        TextColumn("{task.description}", justify="left"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        console=console,
        transient=transient,
    )


class _Live:
    """A command's progress on stderr, with a terminal's live lines (``progress``: ``live_bars``, None off a
    terminal) shown while it is entered."""

    progress: Any = None

    def __enter__(self):
        if self.progress:
            self.progress.start()
        return self

    def __exit__(self, *exc):
        if self.progress:
            self.progress.stop()
        return False


class RichProgress(_Live):
    """The run's progress on stderr, after each shard: games played of all, an honest rate (games played by this
    invocation / wall seconds since it started; games resumed from disk count in neither) and the time left at that
    rate. A terminal gets live bars (all arms, then each arm); anything else a line at most every ``EVERY_S``
    seconds and at the end. Nothing goes to stdout."""

    EVERY_S = 2.0

    def __init__(self, exp: spec.Experiment, console: Any = None):
        from rich.console import Console

        self.clock = time.monotonic
        self.console = console or Console(stderr=True, highlight=False)
        self.all = exp.games * len(exp.arms)
        self.started, self.resumed, self.played, self.printed = self.clock(), 0, 0, -float("inf")
        self.progress = None
        if self.console.is_terminal:
            self.progress = live_bars(self.console, transient=False)
            self.total = self.progress.add_task("all arms", total=self.all, rate="")
            self.arms = {
                arm.index: self.progress.add_task(f"  {arm.name[:48]}", total=exp.games, rate="") for arm in exp.arms
            } if len(exp.arms) > 1 else {}  # fmt: skip

    def start(self, done: dict[int, int]) -> None:
        self.resumed = sum(done.values())
        if self.progress:
            self.progress.update(self.total, completed=self.resumed)
            for arm, games in done.items():
                if arm in self.arms:
                    self.progress.update(self.arms[arm], completed=games)

    def note(self, message: str) -> None:
        self.console.print(f"eastindia: {one_line(message)}", style="yellow", markup=False, highlight=False)

    def status(self) -> str:
        """``games/s, ETA h:mm:ss`` from the games this invocation played."""
        seconds = max(self.clock() - self.started, 1e-9)
        rate = self.played / seconds
        left = max(self.all - self.resumed - self.played, 0)
        eta = left / rate if rate > 0 else float("nan")
        eta_text = "—" if eta != eta else f"{int(eta) // 3600}:{int(eta) % 3600 // 60:02d}:{int(eta) % 60:02d}"
        return f"{rate:,.1f} games/s, ETA {eta_text}"

    def advance(self, arm: int, games: int) -> None:
        self.played += games
        status = self.status()
        if self.progress:
            self.progress.advance(self.total, games)
            self.progress.update(self.total, rate=status)
            if arm in self.arms:
                self.progress.advance(self.arms[arm], games)
            return
        done = self.resumed + self.played
        if self.clock() - self.printed >= self.EVERY_S or done >= self.all:
            self.printed = self.clock()
            resumed = f" ({self.resumed:,} resumed)" if self.resumed else ""
            self.console.print(
                f"eastindia: {done:,}/{self.all:,} games{resumed}, {status}", markup=False, highlight=False
            )


class Steps(_Live):
    """The progress of a command that reads, draws and writes (report, compare, audit, a study's report) on stderr:
    the step it is on and, for a step with a count, done/total, its rate and the time left at that rate. Called as
    ``steps(step)`` when a step begins and ``steps(step, done, total)`` as a counted one goes on; the rate counts from
    the step's first call. A terminal gets one live line (erased when the command ends); anything else a line when a
    step begins and, within a counted step, at most one every ``EVERY_S`` seconds and one at its end. Nothing goes to
    stdout, nothing is written to a file: the callback the reports take (``progress=``) only tells.

    ``live(step)``: a step shown on a terminal only, for what comes before the command's input is known good
    (loading the libraries, opening the run): a refused input is one line on stderr, the error alone."""

    EVERY_S = 2.0

    def __init__(self, command: str, console: Any = None):
        from rich.console import Console

        self.clock = time.monotonic
        self.command = command
        self.console = console or Console(stderr=True, highlight=False)
        self.step: str | None = None
        self.shown: tuple[str, int | None] | None = None  # the last line printed: its step and count
        self.began, self.first, self.printed = 0.0, 0, -float("inf")
        self.progress = self.task = None
        if self.console.is_terminal:
            self.progress = live_bars(self.console, transient=True)  # stdout's answer follows: the line then goes
            self.task = self.progress.add_task(f"{command}: starting", total=None, rate="")

    def rate(self, done: int, total: int) -> str:
        """``1.3/s, ETA 0:00:03`` (below one a second: ``2.5 s each``) from what this step has done since its first
        call."""
        seconds = self.clock() - self.began
        rate = (done - self.first) / seconds if seconds > 0 else 0.0
        if rate <= 0:
            return "ETA —"
        eta = (total - done) / rate
        pace = f"{rate:,.1f}/s" if rate >= 1 else f"{1 / rate:,.1f} s each"
        return f"{pace}, ETA {int(eta) // 3600}:{int(eta) % 3600 // 60:02d}:{int(eta) % 60:02d}"

    def live(self, step: str) -> None:
        self.step = step
        if self.progress:
            self.progress.update(self.task, description=f"{self.command}: {step}", total=None, completed=0, rate="")

    def within(self, where: str) -> _Within:
        """These steps, each named after ``where`` (a tune's confirmation run, a player count's folder)."""
        return _Within(self, where)

    def __call__(self, step: str, done: int | None = None, total: int | None = None) -> None:
        new = step != self.step
        if new:
            self.step, self.began, self.first = step, self.clock(), done or 0
        counted = done is not None and total is not None
        rate = self.rate(done, total) if counted and not new else ""
        if self.progress:
            self.progress.update(
                self.task,
                description=f"{self.command}: {step}",
                total=total if counted else None,
                completed=done if counted else 0,
                rate=rate,
            )
            return
        if not (new or (counted and (done >= total or self.clock() - self.printed >= self.EVERY_S))):
            return
        if (step, done) == self.shown:  # told twice (a step's end once more): one line
            return
        self.printed, self.shown = self.clock(), (step, done)
        count = f" {done:,}/{total:,}" if counted else ""
        line = f"eastindia: {self.command}: {step}{count}" + (f", {rate}" if rate else "")
        self.console.print(line, markup=False, highlight=False, soft_wrap=True)


class _Within:
    """``Steps`` whose every step is named after ``where``."""

    def __init__(self, steps: Steps | _Within, where: str):
        self.steps, self.where = steps, where

    def __call__(self, step: str, done: int | None = None, total: int | None = None) -> None:
        self.steps(f"{self.where}: {step}", done, total)

    def live(self, step: str) -> None:
        self.steps.live(f"{self.where}: {step}")

    def within(self, where: str) -> _Within:
        return _Within(self, where)


def _untold(step: str, done: int | None = None, total: int | None = None) -> None:
    """No progress told (``--quiet``)."""


def steps(args: argparse.Namespace, command: str) -> Steps | None:
    """The command's ``Steps``, or None under ``--quiet``."""
    return None if args.quiet else Steps(command)


def print_summary(run: Run | Aggregates) -> None:
    """Per arm: crash rate, mean end round and each strategy's win rate with their 95 % intervals and fair share
    (from the aggregates a report was just drawn from, else read from the run folder)."""
    from reports.terminal import print_summary as print_tables

    print_tables(run)


# -------------------------------------------------------------------------------------------------- capital
def cmd_capital(args: argparse.Namespace) -> int:
    n = len(args.bids) if args.players is None else args.players
    if not 4 <= n <= 6:
        raise PlayError(f"{n} players is impossible: the game takes 4 to 6")
    if len(args.bids) != n:
        raise PlayError(f"{len(args.bids)} bid totals given for {n} players")
    for bid in args.bids:  # a bid total is a sum of bids of 0 or more coins, held in the engine's int32
        if not 0 <= bid <= NUMBER_MAX:
            raise PlayError(f"bid total {bid}: must be between 0 and {NUMBER_MAX:,}")
    if args.budget is not None and not 0 <= args.budget * n <= NUMBER_MAX:
        raise PlayError(f"--budget {args.budget}: must be between 0 and {NUMBER_MAX // n:,} per player")
    rules = Rules.default(n)
    overrides = {}
    if args.formula:
        overrides["capital.formula"] = args.formula
    if args.budget is not None:  # per player, as the rules key capital.budget_per_player
        overrides["capital.budget_per_player"] = args.budget
    rules = rules.with_overrides(overrides, source="command line") if overrides else rules
    bids = np.array([args.bids])
    exact = capital.exact_capital(bids, rules)
    rounded = capital.round_capital(exact, rules)
    per = rules.capital.budget_per_player
    print(
        f"starting capital: formula {rules.capital.formula}, {n} players, B = {per} per player x {n} = {rules.budget}"
    )
    print(f"{'family':<8}{'bids':>8}{'exact':>10}{'money':>8}")
    for i in range(n):
        print(f"{chr(65 + i):<8}{bids[0, i]:>8}{exact[0, i]:>10.2f}{rounded[0, i]:>8}")
    print(f"{'total':<8}{bids.sum():>8}{exact.sum():>10.2f}{rounded.sum():>8}")
    left = rules.budget - int(rounded.sum())
    if left > 0:
        coins = "coin" if left == 1 else "coins"
        print(
            f"leftover: {left} {coins}, to the family that took the two lowest-priced lots, else the lowest-priced lot"
        )
    elif left < 0:
        order = np.argsort(-(rounded - exact)[0], kind="stable")
        who = ", ".join(chr(65 + int(order[k % n])) for k in range(-left))
        verb = "taken back from" if rules.capital.excess == "take_back" else "kept by the rounding; largest round-ups"
        print(f"excess: {-left} handed out beyond B, {verb} {who}")
    else:
        print("leftover: none")
    return 0


# --------------------------------------------------------------------------------------- strategies, files
def cmd_strategies(args: argparse.Namespace) -> int:
    """Each registered strategy, one line, then one line per parameter: its default (whose type it fixes) and
    what it does."""
    together: spec.Together = {}  # two plugins of one name are refused
    for plugin in args.strategy or []:
        spec.load_plugin(
            spec.split_plugin(plugin)[0] if spec.is_plugin(plugin) else plugin, Path.cwd(), together=together
        )
    for name, doc in registry.describe().items():
        print(f"{name:<16} {doc}")
        for key, param in (getattr(registry.get(name), "PARAMS", None) or {}).items():
            default = param.default
            kind = type(default).__name__ + (f", {param.range}" if getattr(param, "range", "") else "")
            print(f"{'':<18}{key} = {default!r} ({kind}): {param.doc}")
    print('parameters: --strategy NAME:key=value,... or { name = "NAME", key = value } in an experiment file')
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    problems = spec.check_file(args.file)
    for line in problems:
        print(one_line(line), file=sys.stderr)
    if problems:
        return EXIT_USER
    print(f"{args.file}: ok")
    return 0


def cmd_rules(args: argparse.Namespace) -> int:
    if args.dump:
        sys.stdout.write(DEFAULT_PATH.read_text(encoding="utf-8"))
        return 0
    rules = Rules.default()
    print(f"default rules: {DEFAULT_PATH}")
    print(f"sections: {', '.join(rules.raw)}")
    print("print the whole file with: eastindia rules --dump > my_rules.toml")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    if (Path(args.run_dir) / search.META).is_file():  # a tune or sensitivity folder
        return _report_study(args)
    progress = steps(args, "report")
    drawn: list = []
    with progress or _Null():
        path, reference = _report_run(args, progress, drawn.append)
    if reference is not None:  # the summary reads the new reference from run.json
        runner.set_reference(Path(args.run_dir), reference)
    print(f"report: {path}")
    print_summary(drawn[0] if drawn and reference is None else Run.open(args.run_dir))
    return 0


def _report_run(
    args: argparse.Namespace, progress: Steps | None, drawn: Callable[[Aggregates], None] | None = None
) -> tuple[Path, str | None]:
    """``eastindia report`` of a run folder: the report's path and the reference arm chosen (None: run.json's);
    ``drawn`` is handed the aggregates it was drawn from."""
    try:
        meta = Run.open(args.run_dir).meta
    except FileNotFoundError as err:
        raise runner.RunError(str(err)) from None
    except (OSError, ValueError, RecursionError) as err:  # RecursionError: a run.json nested too deeply
        raise runner.RunError(f"{args.run_dir}: {runner._one_line(err)}") from None
    if not isinstance(meta, dict):
        raise runner.RunError(f"{args.run_dir}: run.json is not a table")
    has_frames = rf.frame_path(Path(args.run_dir), "games").is_file()  # none yet: the report says so in one line
    if has_frames and (why := runmeta.problem(meta)):
        raise runner.RunError(f"{args.run_dir}: {rf.META}: {why}")
    reference = None
    if args.reference is not None:
        names = [a["arm"] for a in meta.get("arms") or [] if isinstance(a, dict) and "arm" in a]  # in index order
        reference = rf.pick_arm(names, args.reference)
        if reference is None:
            known = rf.arm_choices(names)
            raise runner.RunError(
                f"--reference: {args.reference!r} is neither the name nor the index of an arm ({known})"
            )
    if progress:
        progress.live(LOADING)
    from reports import write_report
    from reports.data import DamagedRun

    try:
        path = write_report(Path(args.run_dir), reference=reference, progress=progress, drawn=drawn)
    except DamagedRun as err:
        raise runner.RunError(str(err)) from None
    except FileNotFoundError as err:  # no frames yet (a run that has not merged)
        raise runner.RunError(runner._one_line(err)) from None
    except ValueError as err:  # a --reference that names no arm
        raise runner.RunError(f"--reference: {runner._one_line(err)}") from None
    except Exception as err:
        raise _unreadable([Run(Path(args.run_dir), meta)], err) from None
    return path, reference


def cmd_replay(args: argparse.Namespace) -> int:
    from .replay import replay

    jsonl, page = replay(Path(args.run_dir), args.game, args.arm, args.allow_plugins)
    print(f"replay: {jsonl}\nreplay: {page}")
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    from .audit import audit, print_audit

    progress = steps(args, "audit")
    with progress or _Null():
        if progress:
            progress.live(f"opening {args.run_dir}")
        result = audit(
            Path(args.run_dir),
            args.decision,
            args.round_,
            args.arm,
            args.strategy,
            args.values,
            args.games,
            progress,
            args.allow_plugins,
        )
    print_audit(result)
    return 0


def cmd_pair(args: argparse.Namespace) -> int:
    """Each seat of ``--arm`` against the same seat of ``--against`` on the same games: win rate and VP, paired."""
    from reports.data import DamagedRun, check_frames

    from .stats import change, seat_pairs

    try:
        run = Run.open(args.run_dir)
        if why := runmeta.problem(run.meta):
            raise runner.RunError(f"{args.run_dir}: {rf.META}: {why}")
        check_frames(run)
        df = seat_pairs(run, args.arm, args.against)
    except (FileNotFoundError, DamagedRun, ValueError) as err:
        raise runner.RunError(runner._one_line(err)) from None
    except RecursionError as err:  # a run.json nested too deeply
        raise runner.RunError(f"{args.run_dir}: {rf.META}: {runner._one_line(err)}") from None
    first = df.row(0, named=True)
    print(f"{first['arm']} against {first['reference']}: each seat against the same seat of the same game, 95 % CI")
    for r in df.iter_rows(named=True):
        if r["strategy"] == "(crash rate)":
            print(f"crash rate: {100 * r['win']:.1f} % against {100 * r['win_against']:.1f} %: "
                  f"{change(r['d_win'], r['win_lo'], r['win_hi'])} ({r['n']:,} games)")  # fmt: skip
            continue
        vp = f"{r['d_vp']:+.2f} ({r['vp_lo']:+.2f} to {r['vp_hi']:+.2f})".replace("-", "−")
        print(
            f"{r['strategy']} (against {r['against']} there, {r['n']:,} seats): wins {100 * r['win']:.1f} % against "
            f"{100 * r['win_against']:.1f} %: {change(r['d_win'], r['win_lo'], r['win_hi'])}; VP {r['vp']:.2f} "
            f"against {r['vp_against']:.2f}: {vp}"
        )
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    """Each frame of a finished, verified run as ``<frame>.csv`` in ``--out`` (default RUN_DIR/csv)."""
    run_dir = Path(args.run_dir)
    try:
        meta = rf.read_meta(run_dir)
    except FileNotFoundError:
        raise runner.RunError(f"{run_dir}: not a run folder (no {rf.META})") from None
    except (OSError, ValueError, RecursionError) as err:
        raise runner.RunError(f"{run_dir}: {rf.META}: {runner._one_line(err)}") from None
    if why := runmeta.problem(meta):
        raise runner.RunError(f"{run_dir}: {rf.META}: {why}")
    if meta.get("status") != "complete":
        status = meta.get("status")
        raise runner.RunError(f"{run_dir}: the run has not finished (status: {status}); finish it with --resume first")
    reason = rf.verify_frames(run_dir, meta)
    if reason:
        raise runner.RunError(f"{run_dir}: damaged or edited since the run wrote it ({reason})")
    out = Path(args.out) if args.out else run_dir / rf.CSV_DIR
    try:  # export_csv makes --out only once no link is in the way: a refusal leaves no new folder behind
        paths = rf.export_csv(run_dir, out)
    except (FileExistsError, NotADirectoryError):
        raise runner.RunError(f"--out {out}: is a file, not a folder; choose another --out") from None
    except OSError as err:
        raise runner.RunError(f"--out {out}: cannot write there: {err.strerror or err}") from None
    for path in paths:
        print(f"csv: {path}")
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    """Each arm of run B against its counterpart in run A (with ``--arm``: that arm of the run with several arms
    against the other run's arm): a table of changes with 95 % intervals."""
    import polars as pl

    if args.out:  # a link at --out is refused before anything is compared (one line, exit 2)
        out = Path(os.path.abspath(args.out))
        rf.check_targets(out.parent, [out.name])
    runs = []
    for folder in (args.run_a, args.run_b):
        try:
            run = Run.open(folder)
        except FileNotFoundError as err:
            raise runner.RunError(str(err)) from None
        except (OSError, ValueError, RecursionError) as err:
            raise runner.RunError(f"{folder}: {runner._one_line(err)}") from None
        if why := runmeta.problem(run.meta):
            raise runner.RunError(f"{folder}: {rf.META}: {why}")
        if not rf.frame_path(run.path, "games").is_file():
            raise runner.RunError(f"{folder}: no frames yet (run status: {run.meta.get('status', 'unknown')})")
        runs.append(run)
    progress = steps(args, "compare")
    with progress or _Null():
        if progress:
            progress.live(LOADING)
        from reports.compare import compare_runs, shared_games
        from reports.data import DamagedRun
        from reports.tables import change_cell

        try:
            df = compare_runs(*runs, unpaired=args.unpaired, arm=args.arm, progress=progress)
        except (DamagedRun, ValueError) as err:
            raise runner.RunError(runner._one_line(err)) from None
        except Exception as err:
            raise _unreadable(runs, err) from None
    how = (
        "independent samples (--unpaired)"
        if args.unpaired
        else "paired on the games both play (same seed)"
        if shared_games(*runs)
        else "independent samples (other seeds)"
    )
    print(f"A = {runs[0].path}, B = {runs[1].path}: B − A, 95 % intervals, {how}")
    if args.arm is not None and not df.is_empty():
        print(f"arm {df['reference'][0][3:]!r} of A against arm {df['arm'][0][3:]!r} of B (--arm {args.arm})")
    rows = [
        {
            "arm": r["arm"][3:],
            "metric": r["metric"] + (f" {r['strategy']}" if r["strategy"] else ""),
            "A": _value(r["metric"], r["reference_value"]),
            "B": _value(r["metric"], r["arm_value"]),
            "B − A (95 % CI)": change_cell(r["metric"], r["estimate"], r["lo"], r["hi"]),
            "excludes 0": "yes" if r["lo"] > 0 or r["hi"] < 0 else "",
            "n": r["n"],
        }
        for r in df.iter_rows(named=True)
    ]
    config = {"tbl_rows": 1000, "tbl_cols": 20, "tbl_width_chars": 220, "fmt_str_lengths": 80}
    with pl.Config(**config, tbl_hide_dataframe_shape=True, tbl_hide_column_data_types=True):
        print(pl.DataFrame(rows))
    if args.out:
        try:
            with rf.open_write(out.parent, out.name) as fh:  # never through a link at --out
                df.write_parquet(fh)
        except OSError as err:
            raise runner.RunError(f"--out {args.out}: {err.strerror or err}") from None
        print(f"comparisons: {args.out}")
    return 0


def _unreadable(runs: list[Run], err: Exception) -> Exception:
    """A Parquet frame Polars cannot read, in a run folder that records no checksums (one that does was verified
    before reading): the user's damaged file, a one-line RunError. Anything else is returned as it is."""
    import polars as pl

    unverified = [str(run.path) for run in runs if "frames" not in run.meta]
    if isinstance(err, pl.exceptions.PolarsError) and unverified:
        return runner.RunError(f"{' or '.join(unverified)}: cannot read the frames: {runner._one_line(err)}")
    return err


def _value(metric: str, value: float) -> str:
    from reports.tables import pct

    return pct(value) if metric in ("crash rate", "win rate") else f"{value:.2f}"


# --------------------------------------------------------------------------------------- tune, sensitivity
def _study_changes(args: argparse.Namespace) -> dict:
    changes = {"games": args.games, "seed": args.seed, "calibrate": False if args.no_calibrate else None}
    if args.strategy:
        changes["strategies"] = args.strategy
    return changes


def _command(args: argparse.Namespace) -> str:
    return "eastindia " + " ".join(shlex.quote(a) for a in args.argv if a != "--debug")


def _run_study(args: argparse.Namespace, module: Any, study: Any, unit: str) -> tuple[Path, dict[str, Any]]:
    """Play a tune or sensitivity study (``module.run``) with the command line's options and a progress bar."""
    out = Path(args.out) if args.out else runner.default_out(study.exp)
    runner.check_options(args.jobs, args.shard_size, "loky", None, args.resume, args.fresh)
    progress = None if args.quiet else StudyProgress(unit)
    with progress or _Null():
        meta = module.run(
            study,
            out,
            jobs=args.jobs,
            resume=args.resume,
            fresh=args.fresh,
            shard_size=args.shard_size,
            command=_command(args),
            progress=progress,
            notify=progress.note if progress else None,
        )
    if not args.no_report:
        report = steps(args, "report")
        with report or _Null():
            _write_study_report(out, meta.get("kind"), report)
    return out, meta


def _write_study_report(
    out: Path, kind: str | None, progress: Steps | _Within | None = None, played: bool = True
) -> Path:
    """The report of a finished tune (its confirmation run's first), sensitivity, metagame or respond study;
    ``progress`` is told its steps (``Steps``). ``played``: the study was just played here, so its results are known
    good and every step is a line on stderr; else (``eastindia report``) the steps of a report that may still refuse
    the folder are live on a terminal only (a refusal is one line)."""
    say = _untold if progress is None else progress if played else progress.live
    if kind in ("respond", "metagame"):
        import polars as pl

        say(f"writing the {kind} report")
        if kind == "respond":
            from reports.respond import write_respond_report as write
        else:
            from reports.metagame import write_metagame_report as write
        what = "the respond results" if kind == "respond" else "the metagame's results"
        try:
            return write(out)
        except (OSError, pl.exceptions.PolarsError) as err:
            raise runner.RunError(f"{out}: {what} are unreadable: {runner._one_line(err)}") from None
    say(LOADING)
    if kind == "tune":
        from reports import write_report
        from reports.tune import write_counts_report, write_tune_report

        from .tune import CONFIRM

        meta = search.read_meta(out) or {}
        if meta.get("counts"):
            for folder in meta["folders"]:
                _write_study_report(out / folder, kind, progress.within(folder) if progress else None, played)
            say("writing the report of every player count")
            return write_counts_report(out, meta)
        if (out / CONFIRM / rf.META).is_file():
            write_report(
                out / CONFIRM, reference="default", progress=progress.within("confirmation") if progress else None
            )
        say("writing the tune report")
        return write_tune_report(out)
    from reports.sensitivity import write_sensitivity_report

    say("writing the sensitivity report")
    return write_sensitivity_report(out)


def cmd_tune(args: argparse.Namespace) -> int:
    from . import tune

    ts = tune.load(args.file, trials=args.trials, **_study_changes(args))
    first = ts.specs[0] if isinstance(ts, tune.Counts) else ts
    if warning := tune.startup_warning(first):
        print(f"eastindia: warning: {warning}", file=sys.stderr)
    out, meta = _run_study(args, tune, ts, "trials")
    if not meta.get("counts"):
        print_tune(out, meta)
    for n, folder in zip(meta.get("counts", []), meta.get("folders", []), strict=True):
        print(f"{n} players:")
        print_tune(out / folder, search.read_meta(out / folder) or {})
    return 0


def cmd_sensitivity(args: argparse.Namespace) -> int:
    from . import sensitivity

    ss = sensitivity.load(args.file, samples=args.samples, **_study_changes(args))
    print_sensitivity(*_run_study(args, sensitivity, ss, "points"))
    return 0


def cmd_metagame(args: argparse.Namespace) -> int:
    import polars as pl

    from . import metagame

    ms = metagame.load(args.file, **_study_changes(args))
    out, meta = _run_study(args, metagame, ms, "tables")
    if meta.get("counts"):
        print(f"results: {out}  (metagame at {', '.join(map(str, meta['counts']))} players)")
    else:
        print(f"results: {out}  (metagame: {meta['tables']} tables of {meta['games_per_table']:,} games per rules arm)")
    from reports.metagame import terminal_lines

    eq = pl.read_parquet(out / metagame.EQUILIBRIA)
    print("\n".join(terminal_lines(eq, meta.get("arms"), meta.get("counts"))))
    return 0


def cmd_respond(args: argparse.Namespace) -> int:
    import polars as pl

    from . import respond

    rs = respond.load(args.file, rounds=args.rounds, trials=args.trials, **_study_changes(args))
    out, meta = _run_study(args, respond, rs, "trials")
    print(f"results: {out}  (respond, {meta['mode']}: {meta['trials']} trials of {meta['games_per_trial']:,} games)")
    rounds = pl.read_parquet(out / respond.ROUNDS)
    for result in meta["results"]:
        n = result["rounds"]
        print(f"{result['arm']}, {result['players']} players: {result['stopped']} after {n} round{'s' * (n > 1)}")
        mine = rounds.filter((pl.col("arm") == result["arm"]) & (pl.col("players") == result["players"]))
        for r in mine.filter(pl.col("round") == n).iter_rows(named=True):
            gain = respond.tune.format_change("win_rate", r["gain"], r["gain_lo"], r["gain_hi"])
            print(f"  {r['strategy']}: last gain {gain} per seat")
        for s in result["strategies"]:
            print(f"  {s}")
        print(f"  {result['toml']}")
    return 0


def _report_study(args: argparse.Namespace) -> int:
    try:
        meta = search.read_meta(Path(args.run_dir))
    except (OSError, ValueError) as err:
        raise runner.RunError(f"{args.run_dir}: {search.META}: {runner._one_line(err)}") from None
    if args.reference:
        raise runner.RunError("--reference: a tune, sensitivity or metagame report has no reference arm to choose")
    if not meta or meta.get("status") != "complete":
        raise runner.RunError(f"{args.run_dir}: the study has not finished (status: {(meta or {}).get('status')})")
    progress = steps(args, "report")
    with progress or _Null():
        path = _write_study_report(Path(args.run_dir), meta.get("kind"), progress, played=False)
    print(f"report: {path}")
    return 0


class StudyProgress:
    """A study's progress: its trials (or points) with the best value so far, and the games of what is playing."""

    def __init__(self, unit: str):
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self.unit = unit
        self.progress = Progress(
            TextColumn("{task.description}", justify="left"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[extra]}"),
            TimeRemainingColumn(),
            console=Console(stderr=True),  # stdout keeps the results alone
            transient=False,
        )
        self.outer = self.progress.add_task(unit, total=None, extra="") if unit == "trials" else None
        self.games = self.progress.add_task("  games", total=None, extra="")

    def __enter__(self):
        self.progress.start()
        return self

    def __exit__(self, *exc):
        self.progress.stop()
        return False

    def note(self, message: str) -> None:
        self.progress.console.print(f"eastindia: {one_line(message)}", style="yellow", markup=False, highlight=False)

    def told(self, told: int, total: int, best: str) -> None:
        self.progress.update(self.outer, completed=told, total=total, extra=best)

    def batch(self, index: int, trials: list[int], games: int) -> None:
        first, last = trials[0], trials[-1]
        label = f"trial {first}" if first == last else f"trials {first}–{last}"
        self.progress.reset(self.games, total=games, description=f"  {label}: games", extra="")

    def points(self, points: int, games: int) -> None:
        self.progress.reset(self.games, total=games, description=f"{points} points: games", extra="")

    def confirming(self, games: int) -> None:
        self.progress.reset(self.games, total=games, description="  confirmation: games", extra="")

    def start(self, done: dict[int, int]) -> None:
        self.progress.update(self.games, completed=sum(done.values()))

    def advance(self, arm: int, games: int) -> None:
        self.progress.advance(self.games, games)
        speed = self.progress.tasks[self.games].speed
        self.progress.update(self.games, extra=f"{speed:,.0f} games/s" if speed else "")


def print_tune(out: Path, meta: dict) -> None:
    from . import tune

    best = meta.get("best") or {}
    print(f"results: {out}  (tune: {meta.get('trials_told')} trials of {meta.get('games_per_trial'):,} games)")
    what = meta["objective"] + (f" of {meta['strategy']}" if meta.get("strategy") else "")
    value = tune.format_value(meta["objective"], best.get("value"), best.get("lo"), best.get("hi"))
    print(f"best: trial {best.get('trial')}, {what} {value} (target {meta.get('target')})")
    for key, v in (best.get("params") or {}).items():
        print(f"  {key} = {v!r}")
    confirm = (meta.get("confirm") or {}).get("objective")
    if confirm:
        c = meta["confirm"]
        objective = meta["objective"]
        default = tune.format_value(objective, confirm["default"], confirm["default_lo"], confirm["default_hi"])
        chosen = tune.format_value(objective, confirm["best"], confirm["best_lo"], confirm["best_hi"])
        change = tune.format_change(objective, confirm["change"], confirm["change_lo"], confirm["change_hi"])
        print(
            f"confirmation at {c['games']:,} games per arm (seed {c['seed']}): {what} {default} with the default "
            f"rules, {chosen} with the best; change {change}"
        )
    print(f"best overrides: {out / tune.BEST}")


def print_sensitivity(out: Path, meta: dict) -> None:
    import polars as pl

    from . import sensitivity

    games = meta.get("games_per_point")
    print(f"results: {out}  (sensitivity: {meta.get('method')}, {meta.get('points')} points of {games:,} games)")
    from reports.sensitivity import index_text

    df = pl.read_parquet(out / sensitivity.INDICES)
    morris = meta.get("method") == "morris"
    for (metric,), part in df.group_by("metric", maintain_order=True):
        rows = part.sort("rank").iter_rows(named=True)
        ranked = ", ".join(f"{r['key']} {index_text(metric, r['estimate'], morris)}" for r in rows)
        print(f"  {metric} ({part['index'][0]}): {ranked}")


if __name__ == "__main__":
    sys.exit(main())
