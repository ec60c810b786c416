"""Run the BM25 turn-retrieval baseline on LoCoMo: print the table, write bench/results JSON."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from bench.locomo.bm25 import rank_turns
from bench.locomo.corpus import DEFAULT_AUDIT_PATH, DEFAULT_DATA_PATH, load_questions, load_sessions
from bench.locomo.metrics import evaluate, render_table

RESULTS_DIR = Path(__file__).resolve().parents[1] / "results"


def main(argv: list[str] | None = None) -> None:
    """Entry point for ``python -m bench.locomo.run_bm25``."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA_PATH)
    parser.add_argument(
        "--audit",
        type=Path,
        nargs="?",
        const=DEFAULT_AUDIT_PATH,
        default=None,
        help="apply the audit's corrected evidence (default file if no path is given)",
    )
    parser.add_argument("--k1", type=float, default=1.2)
    parser.add_argument("--b", type=float, default=0.75)
    parser.add_argument(
        "--out", type=Path, default=None, help="default: bench/results/locomo_bm25[_audit].json"
    )
    args = parser.parse_args(argv)

    sessions = load_sessions(args.data)
    questions = load_questions(args.data, args.audit)
    rankings = rank_turns(sessions, questions, k1=args.k1, b=args.b)
    turns = evaluate(questions, rankings)
    by_session = evaluate(questions, rankings, sessions=True)

    print("LoCoMo turn retrieval, BM25" + (" (audit errata applied)" if args.audit else ""))
    print(render_table(turns))
    print()
    print("Session level (turn ranking lifted to sessions)")
    print(render_table(by_session))

    report = {
        "benchmark": "locomo10",
        "retriever": "bm25",
        "config": {"k1": args.k1, "b": args.b, "audit_errata": args.audit is not None},
        "turn_level": {name: scores.as_dict() for name, scores in turns.items()},
        "session_level": {name: scores.as_dict() for name, scores in by_session.items()},
    }
    out: Path = args.out or RESULTS_DIR / (
        "locomo_bm25_audit.json" if args.audit else "locomo_bm25.json"
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {out}")


if __name__ == "__main__":
    main()
