#!/usr/bin/env python3
"""Hook latency benchmark: `privacy-audit hook run` for a commit of 10 changed files in
repositories of growing size. Prints the median of RUNS runs per size.

    cargo build --profile dist
    python3 scripts/bench-hook.py [BINARY] [SIZES...]     # default sizes: 1000 10000 50000

Each repository holds N small JSONL files in 500 folders, committed once (with git's own
index, as a user would have); then 10 files are modified and staged, and the hook is timed
on that index. No network, no global git config."""
import json, os, statistics, subprocess, sys, tempfile, time

binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/dist/privacy-audit")
sizes = [int(x) for x in sys.argv[2:]] or [1000, 10000, 50000]
RUNS = 21
env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
env.update(GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@example.com", GIT_COMMITTER_NAME="b",
           GIT_COMMITTER_EMAIL="b@example.com", GIT_CONFIG_NOSYSTEM="1")


def git(repo, *args):
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, stdout=subprocess.DEVNULL)


for n in sizes:
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        env["HOME"] = tmp
        env["PRIVACY_AUDIT_KEY_FILE"] = os.path.join(tmp, "key")
        repo = os.path.join(tmp, "repo")
        git(tmp, "init", "-q", repo)
        git(repo, "config", "gc.auto", "0")  # no background gc racing the timings
        for i in range(n):
            d = os.path.join(repo, f"d{i % 500:03d}")
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, f"case-{i:06d}.jsonl"), "w") as f:
                f.write(json.dumps({"case_id": f"case/{i % 10000:04d}", "note": "synthetic text " * 8}) + "\n")
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "seed")
        for i in range(10):
            path = os.path.join(repo, f"d{i:03d}", f"case-{i:06d}.jsonl")
            with open(path, "a") as f:
                f.write(json.dumps({"case_id": "case/9999", "note": f"changed {i}"}) + "\n")
        git(repo, "add", "-A")
        times = []
        for _ in range(RUNS):
            t = time.perf_counter()
            r = subprocess.run([binary, "hook", "run"], cwd=repo, env=env, capture_output=True)
            times.append((time.perf_counter() - t) * 1000)
            if r.returncode != 0:
                sys.exit(f"hook run exited {r.returncode}: {r.stderr.decode()[:500]}")
        print(f"{n:>6} files, 10 staged: median {statistics.median(times):6.1f} ms  "
              f"(min {min(times):.1f}, max {max(times):.1f}, {RUNS} runs)", flush=True)
