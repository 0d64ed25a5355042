#!/usr/bin/env python3
"""Throughput of the Python path against the CLI on the same folder (MiB/s of files on
disk, wall time, warm page cache, hash cache off for the CLI).

    python scripts/bench-python.py DATA_DIR [--bin target/release/privacy-audit] [--runs 3]

Run it with the interpreter of an environment where `pip install .[dask]` was done.
Rows: the CLI with 1 and 2 threads; `Scanner.scan_path` in one process (the scanner's
own threads); a Dask LocalCluster of 1 and 2 single-threaded worker processes running
python/examples/dask_scan.py's `scan_folder` (cluster start-up not counted).
"""

import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python" / "examples"))


def size_mib(root):
    return sum(p.stat().st_size for p in pathlib.Path(root).rglob("*") if p.is_file()) / 2**20


def best(fn, runs):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root")
    ap.add_argument("--bin", default=str(ROOT / "target" / "release" / "privacy-audit"))
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    os.environ.setdefault("PRIVACY_AUDIT_KEY_FILE", os.path.join(tempfile.mkdtemp(), "key"))
    mib = size_mib(args.root)
    rows = []
    for threads in (1, 2):
        cmd = [args.bin, "scan", args.root, "--format", "json", "--no-progress", "--no-cache",
               "--threads", str(threads), "-o", os.devnull]
        rows.append((f"CLI --threads {threads}", best(lambda: subprocess.run(cmd, check=False, stderr=subprocess.DEVNULL), args.runs)))
    import privacy_audit as pa

    scanner = pa.Scanner()
    rows.append(("Scanner.scan_path (one process)", best(lambda: scanner.scan_path(args.root), args.runs)))
    import dask_scan
    from dask.distributed import Client, LocalCluster

    for workers in (1, 2):
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            dask_scan.scan_folder(args.root, client, shards=workers * 4)  # warm the workers
            t = best(lambda: dask_scan.scan_folder(args.root, client, shards=workers * 4), args.runs)
            rows.append((f"Dask, {workers} worker{'s' if workers > 1 else ''}", t))
    print(f"{args.root}: {mib:.1f} MiB, median of {args.runs}")
    for name, t in rows:
        print(f"  {name:<34} {t:7.2f} s  {mib / t:7.1f} MiB/s")


if __name__ == "__main__":
    main()
