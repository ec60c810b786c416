"""`rememberstack up` as a user runs it: a real subprocess that starts, serves and stops."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from shared.cli.launcher import load_endpoints

RUN = [sys.executable, "-m", "shared.cli.main"]


def _env(data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REMEMBERSTACK_")}
    env.update({"REMEMBERSTACK_DATA_DIR": str(data_dir), "REMEMBERSTACK_LOG_JSON": "false"})
    return env


def test_up_starts_four_services_and_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    env = _env(tmp_path)
    process = subprocess.Popen(
        [*RUN, "up", "--base-port", "0"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 150
        while load_endpoints(tmp_path) is None:
            assert process.poll() is None, process.stdout.read() if process.stdout else ""
            assert time.monotonic() < deadline, "rememberstack up did not start in time"
            time.sleep(0.5)
        status = subprocess.run(
            [*RUN, "status", "--json"], env=env, capture_output=True, text=True, timeout=60
        )
        assert status.returncode == 0, status.stderr
        services = json.loads(status.stdout)["services"]
        assert {name: s["health"] for name, s in services.items()} == {
            "ingest": "SERVING",
            "adjudicator": "SERVING",
            "query": "SERVING",
            "graph": "SERVING",
        }
        _ingest_query_and_reextract_through_the_cli(env)
    finally:
        process.send_signal(signal.SIGTERM)
        output, _ = process.communicate(timeout=60)
    assert process.returncode == 0, output
    assert "stopped" in output
    assert load_endpoints(tmp_path) is None


def _ingest_query_and_reextract_through_the_cli(env: dict[str, str]) -> None:
    spec = Path(__file__).resolve().parents[2] / "samples" / "corpus" / "billing-migration-spec.md"
    ingest = subprocess.run(
        [*RUN, "ingest", str(spec), "--json"], env=env, capture_output=True, text=True, timeout=120
    )
    assert ingest.returncode == 0, ingest.stdout + ingest.stderr
    [version] = json.loads(ingest.stdout)["versions"]
    assert version["ready"] and version["claim_count"] >= 3
    facts = subprocess.run(
        [*RUN, "facts", "billing migration", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert facts.returncode == 0, facts.stderr
    assert json.loads(facts.stdout)["facts"]
    # Same extractor version: re-extraction has nothing to do and says so.
    again = subprocess.run(
        [*RUN, "reextract", "--json"], env=env, capture_output=True, text=True, timeout=60
    )
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["version_ids"] == []
    # A directory with a manifest: its said-on times are used and it is not a document.
    corpus = spec.parent
    listed = subprocess.run(
        [*RUN, "ingest", str(corpus), "--namespace", "cli-corpus", "--no-wait", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert listed.returncode == 0, listed.stdout + listed.stderr
    names = sorted(Path(d["path"]).name for d in json.loads(listed.stdout)["documents"])
    assert names == sorted(p.name for p in corpus.iterdir() if p.name != "manifest.json")
    status = subprocess.run(
        [*RUN, "status", "--namespace", "cli-corpus", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert status.returncode == 0, status.stderr
    assert len(json.loads(status.stdout)["documents"]) == len(names)


def test_service_refuses_to_start_on_an_unknown_schema_revision(
    database_url: str, tmp_path: Path
) -> None:
    """A database stamped by a newer build must not be served by this one."""
    admin = subprocess.run(
        [sys.executable, "-c", _STAMP_UNKNOWN, database_url],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert admin.returncode == 0, admin.stderr
    stamped_url = admin.stdout.strip()
    env = _env(tmp_path)
    env.update({"REMEMBERSTACK_DATABASE_URL": stamped_url, "REMEMBERSTACK_PORT": "0"})
    result = subprocess.run(
        [sys.executable, "-m", "services.query"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "unknown to this build" in result.stderr


# Creates a second database whose alembic_version names a revision this build does not know.
_STAMP_UNKNOWN = """
import asyncio, sys, uuid
import asyncpg
from shared.db.engine import to_asyncpg_dsn

async def main(url):
    name = "future_" + uuid.uuid4().hex[:8]
    admin = await asyncpg.connect(to_asyncpg_dsn(url))
    await admin.execute(f'CREATE DATABASE "{name}"')
    await admin.close()
    target = url.replace("/postgres?", f"/{name}?")
    conn = await asyncpg.connect(to_asyncpg_dsn(target))
    await conn.execute("CREATE TABLE alembic_version (version_num varchar(32) PRIMARY KEY)")
    await conn.execute("INSERT INTO alembic_version VALUES ('9999_from_the_future')")
    await conn.close()
    print(target)

asyncio.run(main(sys.argv[1]))
"""
