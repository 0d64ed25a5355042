"""Shared set-up: an isolated fingerprint key and cache, and the Rust binary the module
is held against (PRIVACY_AUDIT_BIN, else the repository's own build)."""

import os
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "examples" / "sample-dataset"
REALDATA = ROOT.parent / "shared" / "realdata" / "corpus"


def binary() -> str:
    env = os.environ.get("PRIVACY_AUDIT_BIN")
    if env:
        # Tests run the binary from other folders: a relative path is the caller's.
        return str(pathlib.Path(env).resolve())
    for profile in ("release", "debug"):
        candidate = ROOT / "target" / profile / "privacy-audit"
        if candidate.exists():
            return str(candidate)
    found = shutil.which("privacy-audit")
    assert found, "no privacy-audit binary: build it or set PRIVACY_AUDIT_BIN"
    return found


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    """One key for the module and the binary, so their fingerprints agree."""
    monkeypatch.setenv("PRIVACY_AUDIT_KEY_FILE", str(tmp_path / "key"))
    monkeypatch.setenv("PRIVACY_AUDIT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("NO_COLOR", "1")
    # Config discovery from the repository's own folder finds nothing by surprise.
    monkeypatch.chdir(tmp_path)
    yield tmp_path


def cli_json(*args: str) -> tuple:
    out = subprocess.run(
        [binary(), *args, "--format", "json", "--no-progress"],
        capture_output=True,
        check=False,
    )
    import json

    return json.loads(out.stdout), out.returncode


def timeless(report: dict) -> dict:
    """A report without what differs run to run."""
    r = dict(report)
    r.pop("started_at", None)
    r.pop("finished_at", None)
    r["summary"] = {k: v for k, v in r["summary"].items() if k != "duration_ms"}
    return r
