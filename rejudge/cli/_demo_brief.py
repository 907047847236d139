"""`rejudge demo`'s default view: what a newcomer should look at first, in a screen or two.

In the order of the questions people bring (issue 39): does rejudge agree with τ-bench's own
reward, which model is better on τ², what flipped between two rule-set versions and why, and how
far a model judge can be trusted; then every run in one compact table, the near-identical small-
model runs one line each. ``--verbose`` prints every table (:mod:`rejudge.cli._demo_full`).

Nothing here computes a figure: each is read off the :class:`~rejudge.services.DemoResult` that
``--json`` dumps. Rates carry their counts; lines that could outgrow the terminal are wrapped by
Rich at word boundaries, and a run's name, printed whole, gets a line of its own when the
figures beside it would not fit.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from rich.console import Console
from rich.padding import Padding
from rich.text import Text

from rejudge.cli._context import table
from rejudge.cli._figures import of, rate, verdict_rate
from rejudge.model import VerdictCounts

if TYPE_CHECKING:
    from rejudge.model import Agreement
    from rejudge.services import DemoResult, ModelVsModel, PassRate
    from rejudge.services._demo_judge import DemoModelGraded

__all__ = ["render_brief"]

#: tiers of τ-bench's run shown as rows of the agreement table, in this order (the others in a
#: line): state is τ-bench's own way of judging, golden rejudge's default
_AGREEMENT_ROWS = ("state", "golden")
#: the external references a judge's warning names first (the others are counted)
_EXTERNAL = "external"


def _named(c: Console, name: str, figures: str, width: int) -> None:
    """``name`` whole, then ``figures`` beside it when both fit the terminal (from column
    ``width`` when the name is no longer), else below it (indented, wrapped at words)."""
    if len(name) <= width and width + 2 + len(figures) <= c.width:
        c.print(Text(name.ljust(width) + "  " + figures))
    elif len(name) + 2 + len(figures) <= c.width:
        c.print(Text(name + "  " + figures))
    else:
        c.print(Text(name))
        c.print(Padding(Text(figures), (0, 0, 0, 4), expand=False))


def _name_width(c: Console, pairs: list[tuple[str, str]]) -> int:
    """The column the figures start at: the one that lines up the most lines of ``pairs``
    (the widest such column on a tie)."""

    def aligned(width: int) -> int:
        return sum(1 for n, f in pairs if len(n) <= width and width + 2 + len(f) <= c.width)

    return max({len(n) for n, _f in pairs} or {0}, key=lambda w: (aligned(w), w))


# --------------------------------------------------------------------------- 1. τ-bench


def _tau_bench(c: Console, agreement: Agreement, evaluation: int | None, rejudge: str) -> None:
    c.rule("1. Does rejudge agree with τ-bench's own reward?")
    state = agreement.tier("state")
    external = (
        f", τ-bench success {rate(state.table.pass_1 + state.table.fail_1, state.table.total)}"
        if state is not None and state.table.total == agreement.traces
        else ""
    )
    c.print(Text(f"{agreement.run}: {agreement.traces} trajectories{external}"))
    rows = []
    for name in _AGREEMENT_ROWS:
        t = agreement.tier(name)
        if t is None:
            continue
        tb = t.table
        rows.append(
            [
                t.tier,
                rate(tb.pass_1 + tb.pass_0, tb.total),
                rate(tb.pass_1 + tb.fail_0, tb.total),
                "n/a" if tb.kappa is None else f"{tb.kappa:.3f}",
            ]
        )
    c.print(table(None, ["tier", "rejudge PASS", "agrees with τ-bench", "kappa"], rows))
    for name in _AGREEMENT_ROWS:
        t = agreement.tier(name)
        if t is None or not t.disagreements:
            continue
        d = t.disagreements[0]
        why = f" ({', '.join(d.causes)})" if d.causes else ""
        more = f", and {len(t.disagreements) - 1} more" if len(t.disagreements) > 1 else ""
        c.print(Text(f"{name} differs on {d.case} r{d.repetition}: {d.kind}{why}{more}"))
    others = [t for t in agreement.tiers if t.tier not in _AGREEMENT_ROWS]
    if others:
        c.print(
            Text(
                "other tiers agree on "
                + ", ".join(
                    f"{t.tier} {of(t.table.pass_1 + t.table.fail_0, t.table.total)}" for t in others
                )
            )
        )
    if evaluation is not None:
        c.print(Text(f"why each got its reward: {rejudge}report {evaluation} --against external"))


# --------------------------------------------------------------------------- 2. τ²


def _rate(r: PassRate | None) -> str:
    if r is None or r.rate is None:
        return "-"
    interval = ""
    if r.ci95 is not None:
        interval = f" [{r.ci95[0] * 100:.0f}-{r.ci95[1] * 100:.0f}]"
    return f"{100 * r.rate:.1f}% ({of(r.passed, r.n)}){interval}"


def _model_vs_model(c: Console, mvm: ModelVsModel, rejudge: str) -> None:
    c.rule("2. Which model is better on τ²? (τ²'s reward, 95% interval)")
    ranked = sorted(mvm.runs, key=lambda r: (r.suite, -(r.tau2_reward.rate or 0.0)))
    pairs = [(r.run, _rate(r.tau2_reward)) for r in ranked]
    width = _name_width(c, [(f, n) for n, f in pairs])
    for r in ranked:
        figures = _rate(r.tau2_reward)
        # the rate first, padded, so the rates line up whatever the run's name
        _named(c, figures, r.run, width)
    differ = [
        r
        for r in ranked
        if (r.rejudge_golden.passed, r.rejudge_golden.n) != (r.tau2_reward.passed, r.tau2_reward.n)
    ]
    with_state = [r for r in ranked if r.state_agreement is not None]
    agree = [r for r in with_state if r.state_agreement and r.state_agreement.pass_0 == 0]
    agree = [r for r in agree if r.state_agreement and r.state_agreement.fail_1 == 0]
    c.print(
        Text(
            f"rejudge's state tier ({mvm.rules}) gives τ²'s verdict on every trace of "
            f"{of(len(agree), len(with_state))} runs; its golden tier's pass rate differs from "
            f"τ²'s on {len(differ)} (--verbose shows them)"
        )
    )
    pair, cmp = mvm.pair, mvm.pair.compare
    d = cmp.discordant
    c.print(
        Text(
            f"{pair.a} against {pair.b} on the same {pair.tau2_reward.cases} tasks: "
            f"{d.get('pass_to_fail', 0)} pass only for the first, "
            f"{d.get('fail_to_pass', 0)} only for the second, exact McNemar p "
            + ("n/a" if cmp.mcnemar_p is None else f"{cmp.mcnemar_p:.3g}")
            + f" (τ²'s reward: {pair.tau2_reward.pass_to_fail} and "
            f"{pair.tau2_reward.fail_to_pass}, p {pair.tau2_reward.mcnemar_p:.3g}); "
            f"{rejudge}compare {cmp.a} {cmp.b}"
        )
    )


# --------------------------------------------------------------------------- 3. flips


def _flips(c: Console, result: DemoResult, rejudge: str) -> None:
    c.rule("3. What flipped between rule-set versions, and why?")
    pairs: dict[tuple[str, str], list[tuple[str, str, int, int, int]]] = {}
    codes: dict[tuple[str, str], Counter[str]] = {}
    causes: dict[tuple[str, str], Counter[str]] = {}
    for versions in result.comparisons:
        cmp = versions.comparison
        pair = (cmp.meta_a["rules"], cmp.meta_b["rules"])
        moved = Counter(f"{f.from_verdict}->{f.to_verdict}" for f in cmp.flips)
        pairs.setdefault(pair, []).append(
            (
                versions.run,
                versions.tier,
                len(cmp.flips),
                moved["FAIL->PASS"],
                cmp.a,
            )
        )
        for f in cmp.flips:
            # the codes of the failing side: what the other version failed it for
            codes.setdefault(pair, Counter()).update(f.taxonomy_from or f.taxonomy_to)
            causes.setdefault(pair, Counter()).update(f.causes or [f.cause])
    for (a, b), rows in pairs.items():
        flipped = [r for r in rows if r[2]]
        if not flipped:
            c.print(Text(f"{a} -> {b}: no verdict changed on any of {len(rows)} run tiers"))
            continue
        total = sum(r[2] for r in flipped)
        up = sum(r[3] for r in flipped)
        runs = sorted({r[0] for r in flipped})
        c.print(
            Text(
                f"{a} -> {b}: {total} flips over {len(flipped)} tiers of {', '.join(runs)} "
                f"({up} FAIL->PASS, {total - up} PASS->FAIL)"
            )
        )
        why = ", ".join(f"{k} {n}" for k, n in causes.get((a, b), Counter()).most_common())
        top = ", ".join(f"{k} {n}" for k, n in codes.get((a, b), Counter()).most_common(4))
        c.print(
            Padding(
                Text(f"cause: {why}" + (f"; the failing side's codes: {top}" if top else "")),
                (0, 0, 0, 4),
                expand=False,
            )
        )
    golden = next(
        (v.comparison for v in result.comparisons if v.tier == "golden" and v.comparison.flips),
        None,
    )
    if golden is not None:
        c.print(Text(f"each flip and its cause: {rejudge}compare {golden.a} {golden.b}"))


# --------------------------------------------------------------------------- 4. model judge


def _model_judge(c: Console, mg: DemoModelGraded) -> None:
    c.rule("4. Can a model judge be trusted here?")
    for j in mg.judged:
        beside = "; ".join(
            f"{tier} {verdict_rate(s.verdict_counts)}" for tier, (_ev, s) in j.beside.items()
        )
        c.print(
            Text(
                f"{j.judge_model} ({j.rubric}) on {j.run} passes "
                f"{verdict_rate(j.summary.verdict_counts)}" + (f"; {beside}" if beside else "")
            )
        )
        cal = j.calibration
        external = [a for a in cal.weak if a.kind == _EXTERNAL] or cal.weak
        if external:
            rest = len(cal.weak) - len(external)
            line = "weak judge: " + "; ".join(a.phrase() for a in external)
            line += f" (+{rest} more)" if rest else ""
            c.print(Padding(Text(line, style="bold red"), (0, 0, 0, 4), expand=False))
        else:
            c.print(Padding(Text(cal.headline, style="bold"), (0, 0, 0, 4), expand=False))
    for line in mg.skipped:
        c.print(Text(f"model judge skipped: {line}"))


# --------------------------------------------------------------------------- 5. every run


def _tiers_line(per_tier: dict[str, VerdictCounts]) -> str:
    """The tiers of a run folded by figure: ``golden+4 15.5% (11 of 71); state ...``."""
    groups: dict[tuple[int, int], list[str]] = {}
    for tier, counts in per_tier.items():
        groups.setdefault((counts.PASS, counts.scored), []).append(tier)
    parts = []
    for (passed, scored), tiers in sorted(
        groups.items(), key=lambda g: ("golden" not in g[1], g[1][0])
    ):
        head = "golden" if "golden" in tiers else tiers[0]
        others = len(tiers) - 1
        label = head + (f"+{others}" if others else "")
        parts.append(f"{label} {rate(passed, scored)}")
    return "; ".join(parts)


def _runs(c: Console, result: DemoResult) -> None:
    c.rule("Every run, newest rules (golden+4: golden and 4 tiers alike)")
    lines: list[tuple[str, str]] = []
    unscored: list[str] = []
    for h in result.headlines:
        if h.nothing_to_score is not None:
            unscored.append(f"{h.run}: {h.nothing_to_score}")
            continue
        per_tier = {
            e.tier: e.summary.verdict_counts
            for e in result.evaluations
            if e.run == h.run and e.rules == h.rules
        }
        lines.append((h.run, _tiers_line(per_tier)))
    width = _name_width(c, lines)
    for name, figures in lines:
        _named(c, name, figures, width)
    for line in unscored:
        # said once per run, with how its traces ended: a row of n/a says nothing
        c.print(Text(f"{line}; AGENT_ERROR is reported, never counted as FAIL"))


def render_brief(c: Console, result: DemoResult, rejudge: str = "rejudge ") -> None:
    """The default view of ``rejudge demo``; ``rejudge`` starts each command it quotes (with
    ``--db`` when the store is not the default one)."""
    c.rule("[bold]rejudge demo[/bold]")
    reused = sum(1 for e in result.evaluations if e.reused)
    c.print(
        Text(
            f"{len(result.runs)} runs on {len(result.suites)} suites, "
            f"{len(result.evaluations)} evaluations ({reused} already judged), offline, "
            f"{result.elapsed_s:.1f}s"
        )
    )
    tau = next(
        (h for h in result.headlines if h.run == (result.agreement and result.agreement.run)), None
    )
    if result.agreement is not None:
        _tau_bench(c, result.agreement, tau.evaluation if tau is not None else None, rejudge)
    if result.model_vs_model is not None:
        _model_vs_model(c, result.model_vs_model, rejudge)
    _flips(c, result, rejudge)
    if result.model_graded is not None:
        _model_judge(c, result.model_graded)
    _runs(c, result)
