"""Scan a folder of dataset shards on a Dask cluster and merge the shards' reports into
the one report (and exit code) a single `privacy-audit scan FOLDER` would give.

    python dask_scan.py DATA_DIR [--address tcp://scheduler:8786] [--shards N] [-o all.json]
    python dask_scan.py DATA_DIR --fix OUT_DIR    # also write a fixed copy, shard by shard

Without --address it starts a local cluster of 2 worker processes; with one, the same
code runs on a real cluster (the folder must be readable at the same path on every
worker: a shared or object-store mount).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import List, Optional

import privacy_audit as pa

_SCANNER: Optional[pa.Scanner] = None


def _scan_shard(root: str, files: List[str]) -> str:
    # One scanner per worker process: rules compile once, not once per task; one
    # thread each, since the cluster gives each task its core.
    global _SCANNER
    if _SCANNER is None:
        _SCANNER = pa.Scanner(threads=1)
    return _SCANNER.scan_files(root, files).to_json()


def _fix_shard(root: str, out: str, files: List[str]) -> List[dict]:
    # Each worker rewrites its own files; placeholders are keyed by the team key, so
    # one value gets one placeholder whichever worker meets it.
    import os

    global _SCANNER
    if _SCANNER is None:
        _SCANNER = pa.Scanner(threads=1)
    changes: List[dict] = []
    for rel in files:
        with open(os.path.join(root, rel), "rb") as f:
            data = f.read()
        fixed, done = _SCANNER.fix_bytes(rel, data)
        target = os.path.join(out, rel)
        os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
        with open(target, "wb") as f:
            f.write(fixed)
        changes.extend(done)
    return changes


def fix_folder(root: str, out: str, client, shards: int = 8) -> List[dict]:
    """Writes a fixed copy of `root` to `out`, shard by shard on `client`'s workers, and
    returns the changes (no value in them). Hashes recorded over the fixed files are
    not re-recorded here: run `privacy-audit fix OUT --write` once on the copy for that."""
    files = [str(f) for f in pa.Scanner().list_files(root)]
    parts = [files[i::shards] for i in range(shards)]
    parts = [p for p in parts if p]
    futures = client.map(_fix_shard, [root] * len(parts), [out] * len(parts), parts, pure=False)
    return [c for part in client.gather(futures) for c in part]


def scan_folder(root: str, client, shards: int = 8) -> pa.Report:
    """The report of `root`, scanned shard by shard on `client`'s workers."""
    files = pa.Scanner().list_files(root)
    parts = [files[i::shards] for i in range(shards)]
    parts = [p for p in parts if p] or [[]]
    futures = client.map(_scan_shard, [root] * len(parts), parts, pure=False)
    return pa.merge_reports(client.gather(futures))


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", metavar="DATA_DIR")
    ap.add_argument("--address", help="a running scheduler (default: a local cluster)")
    ap.add_argument("--workers", type=int, default=2, help="local cluster size")
    ap.add_argument("--shards", type=int, default=8)
    ap.add_argument("-o", "--output", help="write the merged JSON report here")
    ap.add_argument("--fix", metavar="OUT_DIR", help="also write a fixed copy of DATA_DIR here")
    args = ap.parse_args(argv)

    from dask.distributed import Client, LocalCluster

    if args.address:
        client = Client(args.address)
        cluster = None
    else:
        cluster = LocalCluster(
            n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None
        )
        client = Client(cluster)
    try:
        report = scan_folder(args.root, client, args.shards)
        if args.fix:
            changes = fix_folder(args.root, args.fix, client, args.shards)
            print(f"{len(changes)} values replaced in the copy at {args.fix}", file=sys.stderr)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(report.to_json())
    s = report.summary
    print(
        f"{s['files_scanned']} files, {s['findings']} findings, exit {report.exit_code}",
        file=sys.stderr,
    )
    return report.exit_code


if __name__ == "__main__":
    sys.exit(main())
