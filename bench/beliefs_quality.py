"""End-to-end belief semantics on the generalisation suite, per engine and per half.

Every case is ingested through the real services over gRPC (all four in-process on port 0,
against one embedded PostgreSQL, one fresh namespace per case) and checked through the public
API; see `tests/data/beliefs_generalisation.md`. The tune half reports its failures per case;
the holdout half only counts, here and in the JSON, so nobody tunes on it by reading them.

    python -m bench.beliefs_quality                     # jev and prompt (SmolLM2), both halves
    python -m bench.beliefs_quality --engines jev -v    # jev only, tune failures printed
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import shlex
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from bench.beliefs_runner import CaseResult, run_case
from bench.beliefs_suite import HOLDOUT, SPLIT_SEED, TUNE, load_cases
from bench.beliefs_system import EngineChoice, embedded_database, running_system

__all__ = ["HALVES", "main", "run_engine", "summarize"]

RESULTS = Path(__file__).resolve().parent / "results" / "beliefs_quality.json"
HALVES = {"tune": TUNE, "holdout": HOLDOUT}


def _rates(results: Sequence[CaseResult], key: Any) -> dict[str, dict[str, Any]]:
    total: Counter[str] = Counter()
    passed: Counter[str] = Counter()
    for result in results:
        for label in key(result):
            total[label] += 1
            passed[label] += result.verdict == "pass"
    return {
        label: {"n": total[label], "passed": passed[label], "rate": passed[label] / total[label]}
        for label in sorted(total)
    }


def summarize(results: Sequence[CaseResult], *, with_failures: bool) -> dict[str, Any]:
    """Pass rates per decision type, register and behaviour, and per kind of check. Cases are
    all-or-nothing: a case passes when every check of every expectation block passes."""
    verdicts = Counter(r.verdict for r in results)
    checks: dict[str, Counter[str]] = defaultdict(Counter)
    for result in results:
        for check in result.checks:
            checks[check.kind]["n"] += 1
            checks[check.kind]["passed"] += check.ok
    summary: dict[str, Any] = {
        "cases": len(results),
        "passed": verdicts["pass"],
        "failed": verdicts["fail"],
        "errors": verdicts["error"],
        "pass_rate": verdicts["pass"] / len(results) if results else 0.0,
        "per_decision": _rates(results, lambda r: r.decisions),
        "per_register": _rates(results, lambda r: [r.register]),
        "per_behaviour": _rates(results, lambda r: [r.behaviour]),
        "checks": {
            kind: {"n": c["n"], "passed": c["passed"], "rate": c["passed"] / c["n"]}
            for kind, c in sorted(checks.items())
        },
        "seconds": round(sum(r.seconds for r in results), 1),
    }
    if with_failures:
        summary["failures"] = {r.case_id: r.problems for r in results if r.verdict != "pass"}
    return summary


async def run_engine(
    database_url: str,
    engine: EngineChoice,
    halves: dict[str, list[dict[str, Any]]],
    *,
    parallel: int,
    case_seconds: float,
) -> dict[str, list[CaseResult]]:
    """Every half's cases through one freshly started system running `engine`."""
    out: dict[str, list[CaseResult]] = {}
    gate = asyncio.Semaphore(parallel)
    async with running_system(database_url, engine) as stubs:

        async def one(case: dict[str, Any]) -> CaseResult:
            async with gate:
                return await run_case(stubs, case, case_seconds=case_seconds)

        for name, cases in halves.items():
            out[name] = list(await asyncio.gather(*(one(c) for c in cases)))
    return out


@contextlib.contextmanager
def _prompt_engine(args: argparse.Namespace) -> Iterator[EngineChoice | str]:
    """The prompt engine on the given server, or on a llama-server started here; a string says
    why it cannot run."""
    if args.llm_base_url:
        yield EngineChoice("prompt", args.llm_base_url, args.llm_model, args.llm_timeout)
        return
    try:
        from tests.support.llama import running_llama_server
    except ImportError as exc:  # pragma: no cover - only outside a checkout
        yield f"tests.support.llama unavailable: {exc}"
        return
    try:
        server = running_llama_server()
        llama = server.__enter__()
    except RuntimeError as exc:
        yield f"no llama-server: {exc}"
        return
    try:
        yield EngineChoice("prompt", llama.base_url, llama.model, args.llm_timeout)
    finally:
        server.__exit__(None, None, None)


def _print(engine: str, half: str, summary: dict[str, Any], verbose: bool) -> None:
    print(
        f"{engine} {half}: {summary['passed']}/{summary['cases']} cases pass"
        f" ({summary['pass_rate']:.3f}), {summary['errors']} errors, {summary['seconds']} s"
    )
    for table in ("per_decision", "per_register"):
        for label, row in summary[table].items():
            print(f"  {label:20s} {row['passed']:3d}/{row['n']:3d}  {row['rate']:.3f}")
    if verbose and "failures" in summary:
        for case_id, problems in summary["failures"].items():
            print(f"  FAIL {case_id}")
            for problem in problems:
                print(f"      {problem}")


async def _main(args: argparse.Namespace) -> dict[str, Any]:
    only = set(args.only.split(",")) if args.only else None
    sources = {"tune": Path(args.suite)} if args.suite else HALVES
    halves = {
        name: [c for c in load_cases(path) if only is None or c["id"] in only][: args.cases or None]
        for name, path in sources.items()
        if name in args.halves and (only is None or name == "tune")
    }
    report: dict[str, Any] = {
        "command": "python -m bench.beliefs_quality " + shlex.join(sys.argv[1:]),
        "split_seed": SPLIT_SEED,
        "cases": {name: len(cases) for name, cases in halves.items()},
        "engines": {},
    }
    async with embedded_database() as url:
        for name in args.engines:
            with contextlib.ExitStack() as stack:
                if name == "prompt":
                    choice = stack.enter_context(_prompt_engine(args))
                    if isinstance(choice, str):
                        report["engines"][name] = {"skipped": choice}
                        print(f"prompt: skipped ({choice})")
                        continue
                else:
                    choice = EngineChoice(name)
                started = time.monotonic()
                results = await run_engine(
                    url, choice, halves, parallel=args.parallel, case_seconds=args.case_timeout
                )
                entry: dict[str, Any] = {"seconds": round(time.monotonic() - started, 1)}
                if choice.llm_model:
                    entry["model"] = choice.llm_model
                for half, cases in results.items():
                    entry[half] = summarize(cases, with_failures=half == "tune")
                    _print(name, half, entry[half], args.verbose and half == "tune")
                report["engines"][name] = entry
    return report


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--engines", default="jev,prompt", help="comma-separated: jev,prompt")
    parser.add_argument("--halves", default="tune,holdout", help="comma-separated halves")
    parser.add_argument("--cases", type=int, default=0, help="first N cases per half (0: all)")
    parser.add_argument("--quick", action="store_true", help="8 tune cases, jev only")
    parser.add_argument("--only", default="", help="comma-separated tune case ids (debugging)")
    parser.add_argument("--suite", default="", help="run this case file as the tune half")
    parser.add_argument("--parallel", type=int, default=2, help="cases run at once")
    parser.add_argument("--case-timeout", type=float, default=900.0)
    parser.add_argument("--llm-base-url", default=None, help="use this server for prompt")
    parser.add_argument("--llm-model", default="smollm2")
    parser.add_argument("--llm-timeout", type=float, default=120.0)
    parser.add_argument("--out", default=str(RESULTS))
    parser.add_argument("-v", "--verbose", action="store_true", help="tune failures per case")
    args = parser.parse_args(argv)
    if args.quick:
        args.engines, args.halves, args.cases = "jev", "tune", 8
    args.engines = [e for e in args.engines.split(",") if e]
    args.halves = [h for h in args.halves.split(",") if h]
    report = asyncio.run(_main(args))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
