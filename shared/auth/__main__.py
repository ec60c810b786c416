"""`python -m shared.auth new-key …`: a fresh API key and the key-file entry that admits it."""

from __future__ import annotations

import argparse
import sys

import yaml

from shared.auth.api_keys import hash_api_key, new_api_key
from shared.auth.principal import parse_namespaces, parse_scopes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m shared.auth", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    new = commands.add_parser("new-key", help="print a new key (once) and its key-file entry")
    new.add_argument("--id", required=True, help="recorded as decided_by key:<id>")
    new.add_argument("--scopes", required=True, help="comma-separated: read,ingest,curate,admin")
    new.add_argument("--namespaces", required=True, help="comma-separated names, or '*'")
    commands.add_parser("hash", help="read a key on stdin, print the digest a key file stores")
    args = parser.parse_args(argv)
    if args.command == "hash":
        print(hash_api_key(sys.stdin.read().strip()))
        return 0
    scopes = [s.strip() for s in args.scopes.split(",") if s.strip()]
    namespaces = [n.strip() for n in args.namespaces.split(",") if n.strip()]
    try:
        parse_scopes(scopes, "--scopes")
        parse_namespaces(namespaces, "--namespaces")
    except ValueError as exc:
        parser.error(str(exc))
    key = new_api_key()
    entry = {"id": args.id, "sha256": hash_api_key(key), "scopes": scopes, "namespaces": namespaces}
    print(f"key (shown once; give it to the client as REMEMBERSTACK_AUTH_TOKEN): {key}")
    print("key-file entry (under `keys:`):")
    print(yaml.safe_dump([entry], sort_keys=False), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
