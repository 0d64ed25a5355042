"""Scan a folder of dataset shards on a Dask cluster and merge the shards' reports into
the one report (and exit code) a single `privacy-audit scan FOLDER` would give.

    python dask_scan.py DATA_DIR [--address tcp://scheduler:8786] [--shards N] [-o all.json]

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
