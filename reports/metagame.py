"""The report of a metagame folder (``eastindia metagame``): ``report.html``, ``summary.md`` and ``charts/flow.png``.

- Plain words first: per rules arm, the stable tables and their basins, the game each plays (its crash rate and end
  round, marked degenerate when the Company crashes at least ``degenerate_crash`` of the time), and α-Rank's favourite.
- The equilibria per rules arm: each mix with 95 % bootstrap intervals of its shares, its health, stable or not, its
  basin and the regret (what the best deviant gains against it, with its one-sided interval).
- How the strategies of each equilibrium score: a seat's VP by source, with intervals.
- α-Rank: each strategy's mass per rules arm.
- How each rules arm moves the equilibria against the first one (the reference).
- The invasion table: each strategy alone at a table of another, its win rate against the fair share 1 / players.
- ``charts/flow.png``: the replicator flow on the simplex of the three strategies with the most equilibrium mass
  (the other strategies absent), one panel per rules arm, with the equilibria on that face.
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from experiments import metagame as mg
from experiments import runfolder as rf
from experiments import search
from experiments.runfolder import EXPERIMENT

from . import charts as ch
from .html import CSS, figure_html, table_html, write_counts_page
from .markdown import table_md
from .tables import Table, pct, points, study_settings

REPORT, SUMMARY, CHARTS_DIR = "report.html", "summary.md", "charts"
SHOWN = 0.005  # a share below this is left out of a mix's name


def _mixes(eq: pl.DataFrame) -> list[dict[str, Any]]:
    """One dict per (arm, equilibrium): its rows' first values and ``shares`` / ``lo`` / ``hi`` per strategy."""
    out = []
    for (arm, e), part in eq.group_by("arm", "equilibrium", maintain_order=True):
        first = part.row(0, named=True)
        out.append(
            {
                **first,
                "arm": arm,
                "equilibrium": e,
                "shares": dict(zip(part["strategy"], part["share"], strict=True)),
                "lo": dict(zip(part["strategy"], part["lo"], strict=True)),
                "hi": dict(zip(part["strategy"], part["hi"], strict=True)),
            }
        )
    return out


def whole(p: float) -> str:
    """A share in whole percent: ``72 %``."""
    return f"{100 * p:.0f} %"


def mix_name(shares: dict[str, float]) -> str:
    """``all-bid_low`` or ``bid_low 60 % + balanced 40 %``."""
    present = sorted(((v, s) for s, v in shares.items() if v > SHOWN), reverse=True)
    if len(present) == 1:
        return f"all-{present[0][1]}"
    return " + ".join(f"{s} {whole(v)}" for v, s in present)


def health(m: dict[str, Any]) -> str:
    """The game an equilibrium plays, in words: ``the Company crashes in 96.7 % (95.8–97.5) of its games, which end
    in round 4.6 (4.5–4.7) — degenerate`` (empty for a study written without the health columns)."""
    if m.get("crash_rate") is None:
        return ""
    text = f"the Company crashes in {pct(m['crash_rate'], m.get('crash_lo'), m.get('crash_hi'))} of its games"
    text += f", which end in round {m['mean_end_round']:.1f}"
    if m.get("end_round_lo") is not None:
        text += f" ({m['end_round_lo']:.1f}–{m['end_round_hi']:.1f})"
    return text + (" — degenerate" if m.get("degenerate") else "")


def stability(m: dict[str, Any]) -> str:
    """Plain words for how an equilibrium holds: whether a seat gains by switching strategy, and whether a mix shifted
    a little comes back to it (the replicator dynamics); from one-deviant tables, whether a lone seat that switches
    earns less."""
    if m["basin"] is None:  # a pure table judged from its one-deviant tables
        if m["stable"]:
            return "stable: a lone seat that switches strategy earns less"
        return "holds: a lone seat that switches strategy earns no more, but some earn as much"
    if not m["stable"]:
        return "unstable: no seat gains by switching strategy here, but a mix shifted a little moves away"
    return "stable: no seat gains by switching strategy, and a mix shifted a little comes back"


def basin_words(m: dict[str, Any]) -> str:
    """What the basin says, where it was measured (a stable equilibrium of every seating): the share of the random
    starting mixes whose dynamics end at it; none means its basin is too small for the starts to hit, not that
    nothing leads there (mixes near it come back)."""
    if m["basin"] is None or not m["stable"]:
        return ""
    if m["basin"] == 0:
        return "no random starting mix ended here: only mixes near it lead back to it"
    return f"{whole(m['basin'])} of random starting mixes end here"


def regret_words(m: dict[str, Any]) -> str:
    """The most a seat gains by switching strategy (the regret) as its 95 % bound, in points of a seat's win rate."""
    bound = m.get("regret_hi")
    if bound is None or bound != bound:
        return ""
    return f"by the 95 % bound, a seat that switches strategy gains at most {100 * bound:.1f} pp of win rate"


def headline(arms: list[str], mixes: list[dict[str, Any]], alpha: pl.DataFrame) -> list[str]:
    """A sentence per rules arm: where experienced tables end (the stable equilibria, by basin), the game each plays,
    and α-Rank's pick."""
    out = []
    for arm in arms:
        where = f"Under {arm}, experienced" if len(arms) > 1 else "Experienced"
        stable = [m for m in mixes if m["arm"] == arm and m["stable"]]

        def named(m: dict[str, Any], basin: bool) -> str:
            words = [f"basin {whole(m['basin'])}"] if basin else []
            words += [health(m)] if health(m) else []
            return mix_name(m["shares"]) + (f" ({'; '.join(words)})" if words else "")

        if not stable:
            rest = [named(m, False) for m in mixes if m["arm"] == arm]
            text = f"{where} tables settle on no stable table" + (
                f"; the equilibria ({', '.join(rest)}) are all unstable" if rest else ""
            )
        elif stable[0]["basin"] is None:  # one-deviant tables: no basins
            names = [named(m, False) for m in stable]
            text = f"{where} tables can rest at {' or '.join(names)}, where no single deviant gains"
        else:
            names = [named(m, True) for m in stable]
            text = f"{where} tables converge on {' or '.join(names)}"
        part = alpha.filter(pl.col("arm") == arm).sort("mass", descending=True)
        if part.height:
            text += f"; α-Rank puts {whole(part['mass'][0])} of its mass on {part['strategy'][0]}"
        out.append(text + ".")
    return out


def terminal_lines(eq: pl.DataFrame, arms: list[str] | None = None, counts: list[int] | None = None) -> list[str]:
    """The print of a finished metagame: per equilibrium (the stable ones first; several player ``counts`` side by
    side, a count after another), its mix with intervals, how it holds and the game it plays; a rules arm of ``arms``
    without an equilibrium says so."""
    if counts:
        out = []
        for n in counts:
            part = eq.filter(pl.col("players") == n).drop("players") if "players" in eq.columns else eq.clear()
            out += [f"  {n} players:"] + ["  " + line for line in terminal_lines(part, arms)]
        return out
    out = []
    for arm in arms or []:
        if arm not in eq["arm"]:
            where = f"{arm}: " if len(arms or []) > 1 else ""
            out.append(f"  {where}no equilibrium found: at every table the games judged, some lone deviant gains")
    for m in sorted(_mixes(eq), key=lambda m: not m["stable"]):
        shown = [s for s, v in m["shares"].items() if v > SHOWN or (m["hi"][s] or 0) > SHOWN]
        shares = ", ".join(f"{s} {pct(m['shares'][s], m['lo'][s], m['hi'][s])}" for s in shown)
        where = f"{m['arm']}: " if len(arms or []) > 1 or eq["arm"].n_unique() > 1 else ""
        out.append(f"  {where}{mix_name(m['shares'])} — {stability(m)}")
        out.append(f"    shares (95 % CI): {shares}")
        holds = "; ".join(w for w in (regret_words(m), basin_words(m)) if w)
        if holds:
            out.append(f"    {holds}")
        if health(m):
            out.append(f"    {health(m)}")
    return out


def equilibria_table(mixes: list[dict[str, Any]]) -> Table:
    rows, flags = [], []
    for m in mixes:
        shares = "; ".join(
            f"{s} {pct(v, m['lo'][s], m['hi'][s])}"
            for s, v in m["shares"].items()
            if v > SHOWN or (m["hi"][s] or 0) > SHOWN
        )
        regret = f"{100 * m['regret']:.2f} pp"
        if m.get("regret_hi") is not None:
            regret = f"{100 * m['regret']:.2f} pp (at most {100 * m['regret_hi']:.2f})"
        basin = "—" if m["basin"] is None else whole(m["basin"])
        crash = pct(m.get("crash_rate"), m.get("crash_lo"), m.get("crash_hi")) + (
            " degenerate" if m.get("degenerate") else ""
        )
        end = "—" if m.get("mean_end_round") is None else f"{m['mean_end_round']:.2f}"
        if m.get("end_round_lo") is not None:
            end += f" ({m['end_round_lo']:.2f}–{m['end_round_hi']:.2f})"
        rows.append([m["arm"], mix_name(m["shares"]), shares, crash, end, stability(m), basin, regret])
        flags.append(bool(m["stable"]))
    columns = ["arm", "equilibrium", "shares (95 % CI)", "crash rate (95 % CI)", "end round (95 % CI)", "stability",
               "basin", "regret (95 % bound)"]  # fmt: skip
    return Table(columns, rows, highlight=flags, numeric=[False, False, False, True, True, False, True, True])


def scores_table(mixes: list[dict[str, Any]], health_frame: pl.DataFrame) -> Table | None:
    """A row per equilibrium x strategy it plays: a seat's mean VP in all and by source (the sources that score
    anywhere), each with its 95 % interval."""
    if not health_frame.height:
        return None
    scoring = health_frame.group_by("source", maintain_order=True).agg((pl.col("vp").abs() > 1e-9).any())
    sources = [s for s, keep in scoring.iter_rows() if keep or s == "total"]
    cell = {(r["arm"], r["equilibrium"], r["strategy"], r["source"]): r for r in health_frame.iter_rows(named=True)}
    rows = []
    for m in mixes:
        for s, share in m["shares"].items():
            if (m["arm"], m["equilibrium"], s, "total") not in cell:
                continue
            row = [m["arm"], mix_name(m["shares"]), f"{s} ({whole(share)})"]
            for source in sources:
                r = cell[(m["arm"], m["equilibrium"], s, source)]
                row.append(f"{r['vp']:.2f}" + (f" ({r['lo']:.2f}–{r['hi']:.2f})" if r["lo"] is not None else ""))
            rows.append(row)
    columns = ["arm", "equilibrium", "strategy (share)", *[s.replace("_", " ") for s in sources]]
    return Table(columns, rows, numeric=[False, False, False] + [True] * len(sources))


def alpharank_table(alpha: pl.DataFrame, arms: list[str], labels: list[str]) -> Table | None:
    if not alpha.height:
        return None
    mass = {(r["arm"], r["strategy"]): r["mass"] for r in alpha.iter_rows(named=True)}
    rows = [[s] + [f"{mass[(a, s)]:.3f}" for a in arms] for s in labels]
    return Table(["strategy"] + arms, rows, numeric=[False] + [True] * len(arms))


def shift_table(mixes: list[dict[str, Any]], alpha: pl.DataFrame, arms: list[str]) -> Table | None:
    """Each later rules arm against the first: what becomes of the reference's stable tables, the new ones, and the
    α-Rank masses that move most."""
    if len(arms) < 2:
        return None
    ref = [m for m in mixes if m["arm"] == arms[0] and m["stable"]]
    rows = []
    for arm in arms[1:]:
        here = [m for m in mixes if m["arm"] == arm]
        matched: set[int] = set()
        for m in ref:
            near = [(max(abs(m["shares"][s] - o["shares"][s]) for s in m["shares"]), i) for i, o in enumerate(here)]
            gap, i = min(near) if near else (1.0, -1)
            old = mix_name(m["shares"])
            if gap > 0.05 or not here[i]["stable"]:
                rows.append([arm, old, "no longer stable" if gap <= 0.05 else "gone", _basins(m, None)])
            else:
                matched.add(i)
                moved = "stays" if gap < mg.SAME else f"moves to {mix_name(here[i]['shares'])}"
                rows.append([arm, old, moved, _basins(m, here[i])])
        for i, o in enumerate(here):
            if o["stable"] and i not in matched:
                rows.append([arm, mix_name(o["shares"]), "new stable table", _basins(None, o)])
        a = alpha.filter(pl.col("arm").is_in([arms[0], arm])).pivot("arm", index="strategy", values="mass")
        if a.height:
            diff = sorted(((r[arm] - r[arms[0]], r["strategy"]) for r in a.iter_rows(named=True)), reverse=True)
            rows.append(
                [
                    arm,
                    "α-Rank mass",
                    ", ".join(f"{s} {points(d)} pp" for d, s in diff if abs(d) >= 0.001) or "unchanged",
                    "",
                ]
            )
    return Table(["arm", f"against {arms[0]}", "what happens", "basin"], rows)


def _basins(old: dict[str, Any] | None, new: dict[str, Any] | None) -> str:
    def one(m: dict[str, Any] | None) -> str:
        return "—" if m is None or m["basin"] is None else whole(m["basin"])

    return f"{one(old)} → {one(new)}"


def invasion_tables(inv: pl.DataFrame, arms: list[str], labels: list[str]) -> list[tuple[str, Table]]:
    """Per rules arm: a row per lone strategy, a column per strategy of the other seats."""
    out = []
    for arm in arms:
        part = {(r["invader"], r["resident"]): r for r in inv.filter(pl.col("arm") == arm).iter_rows(named=True)}
        rows = []
        for s in labels:
            cells = []
            for t in labels:
                r = part.get((s, t))
                cells.append("—" if r is None else f"{pct(r['win_rate'], r['lo'], r['hi'])} {_MARK[r['verdict']]}")
            rows.append([s] + cells)
        out.append(
            (arm, Table(["alone ↓ against the others →"] + labels, rows, numeric=[False] + [True] * len(labels)))
        )
    return out


_MARK = {"invades": "▲", "repelled": "▼", "even": ""}


def flow_strategies(mixes: list[dict[str, Any]], alpha: pl.DataFrame, labels: list[str]) -> list[str]:
    """The three strategies with the most equilibrium mass (shares of the stable equilibria weighted by their basins,
    then α-Rank mass), in the order of ``labels``."""
    weight = dict.fromkeys(labels, 0.0)
    for m in mixes:
        for s, v in m["shares"].items():
            weight[s] += v * (1.0 if m["basin"] is None else m["basin"] + 1e-3) * (1.0 if m["stable"] else 1e-3)
    tie = {r["strategy"]: r["mass"] for r in alpha.iter_rows(named=True)}
    top = sorted(labels, key=lambda s: (-weight[s], -tie.get(s, 0.0), labels.index(s)))[:3]
    return [s for s in labels if s in top]


_CORNERS = np.array([[0.0, 0.0], [1.0, 0.0], [0.5, np.sqrt(3) / 2]])


def flow_chart(
    meta: dict[str, Any], payoffs: pl.DataFrame, mixes: list[dict[str, Any]], three: list[str], out_dir: Path
) -> ch.Chart | None:
    """The replicator flow on the face of ``three`` (or the edge of two strategies), one panel per rules arm."""
    labels, players, arms = meta["strategies"], meta["players"], meta["arms"]
    if meta.get("compositions") != "all":
        return None
    tables = mg.compositions(len(labels), players)
    idx = [labels.index(s) for s in three]
    names = corner_names(three)
    n = len(arms)
    ncols = ch.panel_columns(n)
    fig = ch._figure(3.6 * ncols, 3.4 * -(-n // ncols))
    for ax, arm in zip(ch._grid(fig, n, ncols), arms, strict=True):
        game = mg.Game(np.array(tables), mg.arm_payoff(payoffs, labels, tables, arm), players)
        here = [m for m in mixes if m["arm"] == arm]
        (_ternary if len(three) == 3 else _segment)(ax, game, idx, three, here, names)
        ax.set_title(arm, fontsize=10)
    if len(three) == 3:
        caption = (
            f"Where the replicator dynamics carry a population that plays only {', '.join(three)} (the strategies "
            "with the most equilibrium mass): arrows point the way the mix moves, the shading is its speed"
        )
    else:
        caption = (
            f"How fast the share of {three[0]} grows (above 0) or shrinks in a population of {three[0]} and {three[1]}"
        )
    caption += (
        "; filled dots are stable equilibria there, hollow ones unstable. Payoffs: each seat's win rate in the played "
        "tables."
    )
    tuned = [f"{short} is {label}" for short, label in zip(names, three, strict=True) if short != label]
    if tuned:
        caption += f" On the chart {'; '.join(tuned)}."
    return ch._save(fig, out_dir, "flow", "Replicator flow", caption)


def corner_names(labels: list[str]) -> list[str]:
    """What the flow chart writes at a strategy's corner: its label, or for a tuned one (``run_firm(max_debt=0,
    ...)``) its strategy's name marked "tuned" (numbered when two tuned versions of one strategy meet), so that no
    label runs off the chart; the caption spells the tuned ones out."""
    base = [label.split("(", 1)[0] for label in labels]
    out = []
    for i, (label, name) in enumerate(zip(labels, base, strict=True)):
        if label == name:
            out.append(label)
            continue
        same = [j for j, (other, b) in enumerate(zip(labels, base, strict=True)) if b == name and other != b]
        out.append(f"{name} (tuned {same.index(i) + 1})" if len(same) > 1 else f"{name} (tuned)")
    return out


def _face_velocity(game: mg.Game, idx: list[int], x3: np.ndarray) -> np.ndarray:
    x = np.zeros((len(x3), game.k))
    x[:, idx] = x3
    f = game.fitness(x)
    return (x * (f - (x * f).sum(axis=1, keepdims=True)))[:, idx]


def _simplex_grid(n: int) -> np.ndarray:
    """The mixes of three strategies in steps of 1 / n."""
    return np.array([(a, b, n - a - b) for a in range(n + 1) for b in range(n + 1 - a)]) / n


def _ternary(
    ax: Any, game: mg.Game, idx: list[int], three: list[str], mixes: list[dict[str, Any]], names: list[str]
) -> None:
    grid = _simplex_grid(24)
    xy, v = grid @ _CORNERS, _face_velocity(game, idx, grid) @ _CORNERS
    ax.tricontourf(xy[:, 0], xy[:, 1], np.hypot(v[:, 0], v[:, 1]), levels=12, cmap="Blues")
    coarse = _simplex_grid(10)
    cxy, cv = coarse @ _CORNERS, _face_velocity(game, idx, coarse) @ _CORNERS
    norm = np.hypot(cv[:, 0], cv[:, 1])
    ok = norm > 1e-12
    ax.quiver(cxy[ok, 0], cxy[ok, 1], cv[ok, 0] / norm[ok], cv[ok, 1] / norm[ok], color="#333", scale=28, width=0.005)
    ax.plot(*np.vstack([_CORNERS, _CORNERS[:1]]).T, color="#333", lw=0.8)
    for (x, y), name, ha in zip(_CORNERS, names, ("right", "left", "center"), strict=True):
        ax.text(x, y + (0.04 if ha == "center" else -0.06), name, ha=ha, fontsize=8)
    for m in mixes:
        shares = np.array([m["shares"][s] for s in three])
        if shares.sum() > 1 - 1e-6:
            x, y = shares @ _CORNERS
            ax.plot(x, y, "o", ms=7, mec="#c0392b", mfc="#c0392b" if m["stable"] else "white", mew=1.5)
    ax.set_xlim(-0.12, 1.12)
    ax.set_ylim(-0.12, 0.98)
    ax.set_aspect("equal")
    ax.axis("off")


def _segment(
    ax: Any, game: mg.Game, idx: list[int], two: list[str], mixes: list[dict[str, Any]], names: list[str]
) -> None:
    x = np.linspace(0, 1, 201)
    v = _face_velocity(game, idx, np.column_stack([x, 1 - x]))[:, 0]
    ax.axhline(0, color="#999", lw=0.8)
    ax.plot(x, v, color="#2c7fb8")
    for m in mixes:
        share = m["shares"][two[0]]
        if m["shares"][two[0]] + m["shares"][two[1]] > 1 - 1e-6:
            ax.plot(share, 0, "o", ms=7, mec="#c0392b", mfc="#c0392b" if m["stable"] else "white", mew=1.5)
    ch._pct_axis(ax.xaxis)
    ax.set_xlabel(f"share of {names[0]} (the rest: {names[1]})", fontsize=9)
    ax.set_ylabel(f"change of the share of {names[0]}", fontsize=9)
    ax.grid(alpha=0.3)


def settings_table(meta: dict[str, Any]) -> Table:
    rows = [
        ("name", meta.get("name")),
        ("status", meta.get("status")),
        ("command", meta.get("command")),
        ("strategies", ", ".join(meta.get("strategies") or [])),
        ("players", meta.get("players")),
        ("compositions", f"{meta.get('compositions')}: {meta.get('tables')} tables per rules arm"),
        ("games per table", f"{meta.get('games_per_table'):,} (the same games and dice at every table)"),
        ("rules arms", ", ".join(meta.get("arms") or [])),
        ("replicator starts", meta.get("starts")),
        ("bootstrap resamples", meta.get("bootstrap")),
        ("degenerate", f"crash rate at or above {pct(meta.get('degenerate_crash', mg.DEGENERATE_CRASH))}"),
        ("seed of the games / of the analysis", f"{meta.get('seed')} / {meta.get('starts_seed')}"),
    ]
    return study_settings(rows, meta)


NOTE = (
    "A seat's payoff is its win rate at the table (the fair share is 1 / players); a population of players who each "
    "pick a strategy meets at tables drawn from it. An equilibrium is a mix no strategy does better against; it is "
    "stable when small changes of the mix return to it under the replicator dynamics (strategies that win more than "
    "the table's average spread), and its basin is the share of random starting mixes that end there. Intervals: 95 "
    "% bootstrap over the games of every table (the same games resampled at every table, which share their dice), "
    "re-finding the equilibrium nearest to each in every resample. α-Rank (Omidshafiei et al. 2019) ranks the "
    "strategies by how long a finite population that plays one strategy keeps it when mutants appear, at a large "
    "selection intensity."
)


def is_metagame(run_dir: str | Path) -> bool:
    """Is ``run_dir`` a metagame folder (its ``study.json`` says so, or it holds ``payoffs.parquet``)?"""
    run_dir = Path(run_dir)
    try:
        kind = (search.read_meta(run_dir) or {}).get("kind")
    except (OSError, ValueError):
        kind = None
    return kind == mg.SECTION or (run_dir / mg.PAYOFFS).is_file()


def counts_table(eq: pl.DataFrame) -> Table:
    """The equilibria of every player count side by side: a row per rules arm x count x equilibrium."""
    rows, flags = [], []
    mixes = [m for _, part in eq.group_by("players", maintain_order=True) for m in _mixes(part)]
    for m in sorted(mixes, key=lambda m: (m["arm"], m["players"])):
        rows.append([m["arm"], str(m["players"]), mix_name(m["shares"]), stability(m), health(m) or "—"])
        flags.append(bool(m["stable"]))
    columns = ["arm", "players", "equilibrium", "stability", "the game it plays"]
    return Table(columns, rows, highlight=flags)


def write_counts_report(run_dir: Path, meta: dict[str, Any]) -> Path:
    """A metagame of several player counts: each count's own report, then RUN_DIR/report.html and summary.md with
    their equilibria side by side and a link to each."""
    for folder in meta["folders"]:
        write_metagame_report(run_dir / folder)
    table = counts_table(pl.read_parquet(run_dir / mg.EQUILIBRIA))
    return write_counts_page(run_dir, meta, "metagame", "Equilibria per player count", table, NOTE)


def write_metagame_report(run_dir: str | Path) -> Path:
    """Write RUN_DIR/charts/flow.png, RUN_DIR/report.html and RUN_DIR/summary.md of a finished metagame."""
    run_dir = Path(run_dir)
    meta = search.read_meta(run_dir) or {}
    if meta.get("counts"):
        return write_counts_report(run_dir, meta)
    labels, arms = meta["strategies"], meta["arms"]
    payoffs = pl.read_parquet(run_dir / mg.PAYOFFS)
    eq = pl.read_parquet(run_dir / mg.EQUILIBRIA)
    alpha = pl.read_parquet(run_dir / mg.ALPHARANK)
    rf.check_targets(run_dir, [CHARTS_DIR, REPORT, SUMMARY])  # a link refused before any write
    mixes = _mixes(eq)
    words = headline(arms, mixes, alpha)
    chart = flow_chart(meta, payoffs, mixes, flow_strategies(mixes, alpha, labels), run_dir / CHARTS_DIR)
    sections: list[tuple[str, str, list[tuple[str, Table]]]] = [
        ("Settings", "", [("", settings_table(meta))]),
        (
            "Equilibria per rules arm",
            "Highlighted: the stable ones. Crash rate and end round: the game the equilibrium's tables play (each "
            "table weighted by how often seats drawn from the mix make it up); degenerate: the Company crashes at "
            f"least {pct(meta.get('degenerate_crash', mg.DEGENERATE_CRASH))} of the time there. Regret: what the best "
            "lone deviant gains against the mix, with the 95 % point of its resamples (a regret is never negative).",
            [("", equilibria_table(mixes))],
        ),
    ]
    health_path = run_dir / mg.HEALTH
    if health_path.exists() and (table := scores_table(mixes, pl.read_parquet(health_path))) is not None:
        sections.append(
            (
                "How each equilibrium's strategies score",
                "A seat's mean VP in all and by source at the equilibrium (its other seats drawn from the mix), "
                "95 % bootstrap intervals over the games; sources no seat scores from are left out.",
                [("", table)],
            )
        )
    if (table := alpharank_table(alpha, arms, labels)) is not None:
        note = f"Population {alpha['population'][0]}, selection intensity α = {alpha['alpha'][0]:.3g}."
        sections.append(("α-Rank mass per strategy", note, [("", table)]))
    if (table := shift_table(mixes, alpha, arms)) is not None:
        sections.append((f"How each rules arm moves the equilibria (against {arms[0]})", "", [("", table)]))
    inv = mg.invasion_frame(payoffs, labels, meta["players"])
    sections.append(
        (
            "Invasion: one seat against the rest",
            f"The win rate of a lone seat of each strategy (row) at a table of {meta['players'] - 1} seats of another "
            f"(column), 95 % Wilson interval; fair share {whole(1 / meta['players'])}. ▲ above it (it invades), "
            "▼ below it (it is repelled).",
            invasion_tables(inv, arms, labels),
        )
    )
    title = f"{meta.get('name')}: metagame"
    toml_path = run_dir / EXPERIMENT
    toml = toml_path.read_text(encoding="utf-8") if toml_path.exists() else ""
    body = ""
    for i, (name, note, tables) in enumerate(sections):
        body += f"<h3>{escape(name)}</h3>" + (f'<p class="note">{escape(note)}</p>' if note else "")
        for j, (sub, t) in enumerate(tables):
            body += (f"<h4>{escape(sub)}</h4>" if sub else "") + table_html(t, f"metagame-{i}-{j}")
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)} — Corruption &amp; East India report</title><style>{CSS}</style></head>
<body>
<h1>{escape(title)}</h1>
<p class="sub">Corruption &amp; East India balance simulator — metagame report</p>
<h2 id="metagame">Metagame: what experienced tables converge on</h2>
{"".join(f"<p>{escape(w)}</p>" for w in words)}
<p class="note">{escape(NOTE)}</p>
{figure_html(chart) if chart else ""}
{body}
<h3>experiment.toml</h3>
<pre>{escape(toml)}</pre>
</body></html>
"""
    out = rf.write_file(run_dir, REPORT, page)
    parts = [f"# {title}", "## Metagame: what experienced tables converge on", *words, NOTE]
    for name, note, tables in sections:
        parts += [f"### {name}"] + ([note] if note else [])
        for sub, t in tables:
            parts += ([f"#### {sub}"] if sub else []) + [table_md(t)]
    if chart:
        parts += [f"- `charts/{chart.path.name}`: {chart.caption}"]
    rf.write_file(run_dir, SUMMARY, "\n\n".join(parts) + "\n")
    return out
