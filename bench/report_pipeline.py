"""Report section and plot for `bench/results/pipeline_synthetic.json` (issue 8): ingest and
adjudication throughput against corpus size, the sequential-adjudicator ratio, peak memory."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.report_sections import fmt, pyplot
from shared.grpc.services import SERVICE_NAMES

__all__ = ["SECTIONS", "headline_rows"]

Section = Callable[[dict[str, Any], Path], list[str]]
Row = tuple[str, str, Any, Callable[[float], bool] | None]
STAGES = ("extract", "embed", "adjudicate")
# Memory is reported per service process and for the database they share.
MEMORY_COLUMNS = (*SERVICE_NAMES, "postgres")
PLOT = "pipeline_throughput.png"


def _sizes(data: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    sizes = data.get("sizes", {})
    return sorted(((int(k), v) for k, v in sizes.items() if isinstance(v, dict)))


def _stage(run: dict[str, Any], stage: str) -> str:
    figures = run.get("stages", {}).get(stage, {})
    return f"{fmt(figures.get('wall_seconds'), 1)} s ({fmt(figures.get('claims_per_second'), 1)})"


def _row(label: str, run: dict[str, Any]) -> str:
    return (
        f"| {label} | {run.get('claims', '–')} | {run.get('facts', '–')} | "
        f"{run.get('superseded_facts', '–')} | {run.get('facts_in_contradiction_groups', '–')} | "
        + " | ".join(_stage(run, stage) for stage in STAGES)
        + f" | {fmt(run.get('adjudicate_done_after_embed_seconds'), 1)} s"
        + f" | {fmt(run.get('wall_seconds_end_to_end'), 1)} s "
        f"({fmt(run.get('claims_per_second_end_to_end'), 1)}) | "
        f"{'/'.join(str(x) for x in run.get('load_average_1min', [])) or '–'} |"
    )


def _memory(run: dict[str, Any]) -> str:
    memory = run.get("memory", {})
    cells = []
    for service in MEMORY_COLUMNS:
        figures = memory.get(service)
        if not figures:
            cells.append("–")
            continue
        # Postgres backends share their buffers: PSS counts shared pages once, RSS per process.
        key = "peak_pss_mib" if service == "postgres" else "peak_rss_mib"
        count = figures.get("processes", 1)
        cells.append(
            fmt(figures.get(key), 0) + (f" ({count} proc.)" if count and count > 1 else "")
        )
    return " | ".join(cells)


def _plot(data: dict[str, Any], locomo: dict[str, Any] | None, path: Path) -> None:
    plt = pyplot()
    figure, (rates, walls) = plt.subplots(1, 2, figsize=(10, 4))
    sizes = _sizes(data)
    xs = [size for size, _ in sizes]
    for stage in STAGES:
        ys = [run.get("stages", {}).get(stage, {}).get("claims_per_second") for _, run in sizes]
        rates.plot(xs, [y or 0.0 for y in ys], marker="o", label=f"{stage} (stage wall time)")
    rates.plot(
        xs,
        [run.get("claims_per_second_end_to_end") or 0.0 for _, run in sizes],
        marker="s",
        color="black",
        label="end to end",
    )
    walls.plot(
        xs,
        [run.get("wall_seconds_end_to_end") or 0.0 for _, run in sizes],
        marker="s",
        color="black",
        label="synthetic, configured",
    )
    baseline = data.get("baseline", {})
    base_run = baseline.get("run") if isinstance(baseline.get("run"), dict) else None
    if base_run:
        size = int(baseline.get("size", base_run.get("documents", 0)))
        rate = base_run.get("stages", {}).get("adjudicate", {}).get("claims_per_second")
        cross: dict[str, Any] = {"marker": "x", "s": 70, "color": "red", "zorder": 3}
        rates.scatter([size], [rate or 0.0], label="adjudicate, sequential baseline", **cross)
        walls.scatter(
            [size],
            [base_run.get("wall_seconds_end_to_end") or 0.0],
            label="sequential adjudicator",
            **cross,
        )
    if locomo and locomo.get("sessions"):
        sessions = int(locomo["sessions"])
        diamond: dict[str, Any] = {"marker": "D", "color": "purple", "zorder": 3}
        rates.scatter(
            [sessions],
            [locomo.get("claims_per_second_adjudication") or 0.0],
            label="LoCoMo adjudicated",
            **diamond,
        )
        walls.scatter(
            [sessions],
            [locomo.get("wall_seconds_ingest_to_facts") or 0.0],
            label="LoCoMo (longer documents)",
            **diamond,
        )
    for axis in (rates, walls):
        axis.set_xscale("log")
        # Label the measured sizes only: log minor ticks overlap at these few points.
        axis.set_xticks(xs, [str(x) for x in xs])
        axis.minorticks_off()
        axis.set_xlabel("documents")
        axis.legend(fontsize=7)
    rates.set_ylabel("claims/s")
    rates.set_title("Ingest and adjudication throughput")
    walls.set_ylim(bottom=0)
    walls.set_ylabel("ingest start → last fact (s)")
    walls.set_title("End-to-end wall time")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def _section(data: dict[str, Any], plots: Path, locomo: dict[str, Any] | None) -> list[str]:
    sizes = _sizes(data)
    baseline = data.get("baseline", {})
    base_run = baseline.get("run") if isinstance(baseline.get("run"), dict) else None
    lines = [
        "Synthetic meeting notes, team chats and status updates (`bench/synthetic_corpus.py`, "
        f"seed {data.get('corpus', {}).get('seed', '?')}): recurring people, teams and projects "
        "whose state changes over a simulated year, so later documents confirm, supersede and "
        "dispute earlier facts. Each size is a fresh `SystemLauncher` system (embedded Postgres, "
        "four service processes, gRPC on loopback). A stage's wall time runs from its first item "
        "picked up to its last finished (stages overlap, so an adjudicator that keeps up is paced "
        "by embedding: see how long after the last embed it finished); claims/s in brackets. "
        f"Mode: {data.get('mode', '?')}.",
        "",
        "| documents | claims | facts | superseded | in contradiction groups | extract | embed | "
        "adjudicate | adjudicate done after embed | end to end | load avg (before/after) |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    lines += [_row(f"{size:,}", run) for size, run in sizes]
    if base_run:
        lines.append(_row(f"{baseline.get('size', '?')} (sequential adjudicator)", base_run))
        lines += [
            "",
            f"Parallel throughput against the sequential baseline (measured in the same run: "
            f"{baseline.get('description', '')}): adjudicate stage claims/s ratio "
            f"**{fmt(baseline.get('speedup_adjudicate_claims_per_second'), 2)}**, end-to-end "
            f"claims/s ratio **{fmt(baseline.get('speedup_end_to_end_claims_per_second'), 2)}** "
            f"(configured adjudicator settings: "
            f"`{data.get('configured_adjudicator_env') or 'defaults'}`).",
        ]
    lines += [
        "",
        "Worker time per stage (seconds the items themselves recorded, summed over workers; claims "
        "per busy second in brackets; the part the model itself ran):",
        "",
        "| documents | " + " | ".join(STAGES) + " | decisions |",
        "|---|---|---|---|---|",
    ]
    for size, run in sizes:
        cells = []
        for stage in STAGES:
            figures = run.get("stages", {}).get(stage, {})
            model = figures.get("model_seconds")
            cells.append(
                f"{fmt(figures.get('busy_seconds'), 1)} s "
                f"({fmt(figures.get('claims_per_busy_second'), 1)})"
                + (f", model {fmt(model, 1)} s" if model else "")
            )
        decisions = ", ".join(f"{k} {v}" for k, v in sorted(run.get("decisions", {}).items()))
        lines.append(f"| {size:,} | " + " | ".join(cells) + f" | {decisions} |")
    lines += [
        "",
        "Peak memory per service in MiB (sampled every 0.5 s over the service's whole process "
        "tree; RSS for the Python services, PSS for Postgres and its backends):",
        "",
        "| documents | " + " | ".join(MEMORY_COLUMNS) + " |",
        "|---|---|---|---|---|---|",
    ]
    lines += [f"| {size:,} | {_memory(run)} |" for size, run in sizes]
    if base_run:
        lines.append(f"| {baseline.get('size', '?')} (sequential) | {_memory(base_run)} |")
    if sizes:
        _plot(data, locomo, plots / PLOT)
        lines += ["", f"![ingest and adjudication throughput vs corpus size](plots/{PLOT})"]
    return lines


def _locomo() -> dict[str, Any] | None:
    # The LoCoMo end-to-end run (bench.pipeline_throughput) goes on the same plot as a reference.
    path = Path(__file__).resolve().parent / "results" / "pipeline_throughput.json"
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def pipeline_synthetic(data: dict[str, Any], plots: Path) -> list[str]:
    return _section(data, plots, _locomo())


SECTIONS: dict[str, tuple[str, Section]] = {
    "pipeline_synthetic": (
        "Ingest → claims → facts on a synthetic corpus at three sizes (issue 8)",
        pipeline_synthetic,
    ),
}


def headline_rows(load: Callable[[str], dict[str, Any] | None]) -> list[Row]:
    """Issue 8's synthetic-corpus figures for the headline table (no numeric target there)."""
    data = load("pipeline_synthetic")
    sizes = _sizes(data or {})
    if not sizes:
        return [("8", "synthetic corpus ingest → facts", None, None)]
    size, run = sizes[-1]
    memory = run.get("memory", {})
    largest = max(
        (
            (figures.get("peak_rss_mib") or 0.0, service)
            for service, figures in memory.items()
            if service != "postgres" and isinstance(figures, dict)
        ),
        default=(None, "–"),
    )
    baseline = (data or {}).get("baseline", {})
    return [
        (
            "8",
            f"synthetic {size:,} docs: ingest → facts (s)",
            run.get("wall_seconds_end_to_end"),
            None,
        ),
        (
            "8",
            f"synthetic {size:,} docs: claims/s end to end",
            run.get("claims_per_second_end_to_end"),
            None,
        ),
        (
            "8",
            f"synthetic {size:,} docs: peak RSS of the largest service ({largest[1]}, MiB)",
            largest[0],
            None,
        ),
        (
            "8",
            f"adjudicate claims/s vs sequential adjudicator ({baseline.get('size', '?')} docs)",
            baseline.get("speedup_adjudicate_claims_per_second"),
            None,
        ),
    ]
