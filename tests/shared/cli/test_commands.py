"""The CLI without a running system: file collection, manifests, and loud failures."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from rememberstack.v1 import document_pb2

from shared.cli.ingest_files import ManifestError, collect_files, load_manifest, parse_said_on
from shared.cli.progress import stage_counts

RUN = [sys.executable, "-m", "shared.cli.main"]
CORPUS = Path(__file__).resolve().parents[3] / "samples" / "corpus"


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REMEMBERSTACK_")}
    env.update({"REMEMBERSTACK_DATA_DIR": str(tmp_path), "REMEMBERSTACK_LOG_JSON": "false"})
    env.update(extra)
    return env


def _unused_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_the_sample_corpus_manifest_gives_said_on_times_and_is_not_a_document() -> None:
    files, said_on = collect_files([CORPUS])
    assert "manifest.json" not in {f.name for f in files}
    assert {f.name for f in files} == set(said_on)
    assert said_on["billing-migration-spec.md"] == datetime(2026, 3, 2, 10, tzinfo=UTC)


def test_hidden_files_in_directories_are_skipped_but_named_files_are_kept(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref")
    (tmp_path / "notes.md").write_text("# Notes")
    named = tmp_path / "manifest.json"
    named.write_text("{}")
    files, _ = collect_files([tmp_path])
    assert [f.name for f in files] == ["notes.md"]
    # A manifest named on the command line is a file the user asked to ingest.
    assert collect_files([named])[0] == [named]


def test_a_bad_manifest_or_said_on_time_says_which_and_why(tmp_path: Path) -> None:
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"a.md": "last tuesday"}))
    with pytest.raises(ManifestError, match=r"a\.md.*ISO-8601"):
        load_manifest(manifest)
    assert parse_said_on("2026-03-02T10:00:00") == datetime(2026, 3, 2, 10, tzinfo=UTC)


def test_stage_counts_count_done_retrying_and_dead_versions_per_stage() -> None:
    def state(*statuses: int) -> document_pb2.VersionReadiness:
        stages = [document_pb2.StageState(stage=i + 1, status=s) for i, s in enumerate(statuses)]
        return document_pb2.VersionReadiness(stages=stages)

    done, skipped = document_pb2.STAGE_STATUS_SUCCEEDED, document_pb2.STAGE_STATUS_SKIPPED
    failed, dead = document_pb2.STAGE_STATUS_FAILED, document_pb2.STAGE_STATUS_DEAD_LETTER
    counts = stage_counts([state(done, done, done, failed), state(done, done, skipped, dead)])
    assert counts["extract"] == (2, 0, 0)
    assert counts["embed"] == (0, 1, 1)
    assert counts["adjudicate"] == (0, 0, 0)


def test_up_exits_non_zero_naming_the_port_when_it_is_taken(tmp_path: Path) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        result = subprocess.run(
            [*RUN, "up", "--base-port", str(port)],
            env=_env(tmp_path),
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert result.returncode == 1
    assert f"port(s) {port}" in result.stderr and "--base-port" in result.stderr


def test_status_exits_non_zero_and_says_what_to_run_when_nothing_serves(tmp_path: Path) -> None:
    addresses = {
        f"REMEMBERSTACK_{name.upper()}_ADDRESS": f"127.0.0.1:{_unused_port()}"
        for name in ("ingest", "adjudicator", "query", "graph")
    }
    result = subprocess.run(
        [*RUN, "status", "--json"],
        env=_env(tmp_path, **addresses),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    services = json.loads(result.stdout)["services"]
    assert all(s["health"].startswith("UNREACHABLE") for s in services.values())
    assert "rememberstack up" in result.stderr


def test_a_query_with_the_services_down_says_what_to_run(tmp_path: Path) -> None:
    env = _env(tmp_path, REMEMBERSTACK_QUERY_ADDRESS=f"127.0.0.1:{_unused_port()}")
    result = subprocess.run(
        [*RUN, "facts", "billing", "--namespace", "team-a"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    assert "cannot reach RememberStack" in result.stderr and "rememberstack up" in result.stderr
