#!/usr/bin/env python3
"""Daemon benchmark: event-to-report latency for single files and for a 10,000-file
burst, and the daemon's idle and peak memory.

    cargo build --profile dist
    python3 scripts/bench-daemon.py [BINARY] [DEBOUNCE_MS]    # default debounce: 500 (the default)

Latency = report file's mtime - the moment the test file was closed. Single files are
written one at a time, each waiting for its report; the burst writes 10,000 files as
fast as Python can and measures each file until the report naming it exists."""
import glob, json, os, signal, statistics, subprocess, sys, tempfile, time

binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/dist/privacy-audit")
debounce = int(sys.argv[2]) if len(sys.argv) > 2 else 500


def rss(pid, field):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(field):
            return int(line.split()[1]) // 1024
    return 0


def reports_index(rdir, seen):
    """path -> report mtime, for reports not read yet."""
    out = {}
    for f in sorted(glob.glob(os.path.join(rdir, "report-*.json"))):
        if f in seen:
            continue
        seen.add(f)
        mtime = os.stat(f).st_mtime
        for x in json.load(open(f))["files"]:
            out[x["path"]] = mtime
    return out


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
    data, rdir = os.path.join(tmp, "data"), os.path.join(tmp, "reports")
    os.makedirs(data)
    with open(os.path.join(tmp, "config.toml"), "w") as f:
        f.write(f'[daemon]\nwatch = ["data"]\nreports = "reports"\nstate = "state"\n'
                f'quarantine = "q"\ndebounce_ms = {debounce}\n')
    log = open(os.path.join(tmp, "daemon.log"), "w")
    d = subprocess.Popen([binary, "daemon", "--config", "config.toml"], cwd=tmp, stderr=log,
                         env={**os.environ, "RUST_LOG": "warn"})
    time.sleep(1.5)
    idle = rss(d.pid, "VmRSS")
    seen, judged = set(), {}
    single = []
    for i in range(50):
        p = os.path.join(data, f"single-{i:03d}.jsonl")
        with open(p, "w") as f:
            f.write(json.dumps({"note": f"case {i}", "contact": "ion.popescu@gmail.com"}) + "\n")
        t0 = time.time()
        while p not in judged:
            judged.update(reports_index(rdir, seen))
            time.sleep(0.005)
        single.append((judged[p] - t0) * 1000)
    n = 10_000
    written = {}
    os.makedirs(os.path.join(data, "burst"))
    t_start = time.time()
    for i in range(n):
        p = os.path.join(data, "burst", f"f{i:05d}.jsonl")
        with open(p, "w") as f:
            f.write(json.dumps({"i": i, "note": "synthetic text " * 4}) + "\n")
        written[p] = time.time()
    t_written = time.time()
    deadline = time.time() + 300
    while any(p not in judged for p in written) and time.time() < deadline:
        judged.update(reports_index(rdir, seen))
        time.sleep(0.05)
    missing = [p for p in written if p not in judged]
    burst = [(judged[p] - written[p]) * 1000 for p in written if p in judged]
    peak = rss(d.pid, "VmHWM")
    d.send_signal(signal.SIGTERM)
    code = d.wait(timeout=60)
    print(f"debounce {debounce} ms")
    print(f"single files (50): median {statistics.median(single):.0f} ms, p99 {pct(single, 99):.0f} ms")
    print(f"burst of {n}: written in {t_written - t_start:.1f} s, all judged after "
          f"{max(judged[p] for p in written if p in judged) - t_start:.1f} s; per-file latency "
          f"median {statistics.median(burst):.0f} ms, p99 {pct(burst, 99):.0f} ms; missing {len(missing)}")
    print(f"memory: idle {idle} MiB RSS, peak {peak} MiB (VmHWM); exit code on SIGTERM {code}")
