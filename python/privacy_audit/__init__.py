"""privacy-audit: a privacy gate for LLM-evaluation datasets.

Finds full local paths, internal host names, e-mail addresses, credentials, IPs,
personal data and operator-listed names in JSON, JSONL, gzip and text, and checks
recorded sha256 hashes. Every value a finding shows is masked exactly as in the
command's reports: nothing returned here holds a matched value in full.

    scanner = Scanner()                      # rules and config loaded once
    scanner.scan_bytes("case.jsonl", data)   # -> list[Finding]
    scanner.scan_record({"note": "..."})     # -> list[Finding]
    scanner.scan_path("data/")               # -> Report

Scanning releases the GIL, so threads scan in parallel.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from typing import Any, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from . import _native
from ._native import PrivacyAuditError

__all__ = ["Finding", "PrivacyAuditError", "Report", "Scanner", "merge_reports"]
__version__ = _native.__version__

PathLike = Union[str, "os.PathLike[str]"]


@dataclass(frozen=True)
class Finding:
    """One violation, with its value masked; the fields of a report's finding."""

    rule_id: str
    category: str
    severity: str
    confidence: str
    path: str
    line: Optional[int]
    column: Optional[int]
    json_pointer: Optional[str]
    excerpt: str
    fingerprint: str
    message: str
    commit: Optional[str] = None
    #: The reasons behind `confidence` (docs/scanning.md lists them).
    why: Tuple[str, ...] = ()
    #: One rule at one JSON Pointer pattern in one file, within its report.
    group: Optional[str] = None

    @classmethod
    def _from(cls, d: dict) -> "Finding":
        return cls(
            rule_id=d["rule_id"],
            category=d["category"],
            severity=d["severity"],
            confidence=d["confidence"],
            path=d["path"],
            line=d.get("line"),
            column=d.get("column"),
            json_pointer=d.get("json_pointer"),
            excerpt=d["excerpt"],
            fingerprint=d["fingerprint"],
            message=d["message"],
            commit=d.get("commit"),
            why=tuple(d.get("why") or ()),
            group=d.get("group"),
        )

    def to_dict(self) -> dict:
        """The finding as a report lists it."""
        d = asdict(self)
        for optional in ("commit", "group"):
            if d[optional] is None:
                del d[optional]
        return d


class Report:
    """A scan's report (the JSON `privacy-audit scan --format json` prints) and the exit
    code the command would give: 0 clean, 1 findings, 2 something not judged."""

    def __init__(self, data: dict, exit_code: int) -> None:
        self._data = data
        self.exit_code = exit_code

    @property
    def findings(self) -> List[Finding]:
        return [Finding._from(f) for f in self._data["findings"]]

    @property
    def summary(self) -> dict:
        return json.loads(json.dumps(self._data["summary"]))

    @property
    def files(self) -> List[dict]:
        return json.loads(json.dumps(self._data["files"]))

    def to_dict(self) -> dict:
        return json.loads(json.dumps(self._data))

    def to_json(self) -> str:
        return json.dumps(self._data, ensure_ascii=False)

    def __repr__(self) -> str:
        s = self._data["summary"]
        return (
            f"Report(files_scanned={s['files_scanned']}, findings={s['findings']}, "
            f"exit_code={self.exit_code})"
        )


class Scanner:
    """Rules, config and fingerprint key loaded once, shared by every call and thread.

    `config` is a privacy-audit.toml; without one it is found as the command finds it
    (the nearest privacy-audit.toml up to the repository root, then the user's).
    `threads` bounds the threads a folder scan uses (default: every core); a pipeline
    that runs one task per core gives 1.
    """

    def __init__(
        self,
        config: Optional[PathLike] = None,
        threads: Optional[int] = None,
        *,
        _discover: bool = True,
    ) -> None:
        path = os.path.abspath(os.fspath(config)) if config is not None else None
        self._threads = threads
        self._native = _native.NativeScanner(path, threads, _discover)
        # The config actually used (found or given), absolute: what another process
        # must load to judge the same way, whatever folder it runs in.
        found = self._native.config_path()
        self._config = os.path.abspath(found) if found is not None else None

    def __reduce__(self):
        # Sent to another process (Dask, datasets.map), a scanner is rebuilt there from
        # the config this one used, or the defaults if it used none: never from a
        # lookup in the receiving process's folder.
        return (_rebuild, (self._config, self._threads))

    def scan_bytes(self, name: str, data: bytes) -> List[Finding]:
        """Findings of `data` read as a file called `name`: the name picks the format
        (JSON, JSONL, gzip, text). Raises PrivacyAuditError for content it could not
        judge (a corrupt gzip, a binary file): never an empty list for it."""
        text = self._native.scan_bytes(name, bytes(data))
        return [Finding._from(f) for f in json.loads(text)]

    def fix_bytes(self, name: str, data: bytes) -> Tuple[bytes, List[dict]]:
        """`data` (read as a file called `name`) with what `scan_bytes` finds rewritten
        as placeholders, as `privacy-audit fix` rewrites a file: the new bytes and the
        changes (path, pointer, rule, fingerprint, masked value, placeholder). The same
        value gets the same placeholder in every call, shard and process of a team (it
        is keyed by the `[team] key`). What cannot be rewritten raises nothing: the
        bytes keep it, and `scan_bytes` still reports it."""
        fixed, log = self._native.fix_bytes(name, bytes(data))
        return bytes(fixed), json.loads(log)["changes"]

    def scan_record(self, record: Mapping[str, Any], name: str = "") -> List[Finding]:
        """Findings of one record, read as JSON (`name` defaults to record.json)."""
        # Any mapping (a `datasets` row, a pandas row's dict) is read as its dict; what
        # JSON cannot hold is read as its text (timestamps, bytes), a missing number
        # (NaN) as null.
        text = json.dumps(_plain(dict(record)), ensure_ascii=False, default=str, allow_nan=False)
        data = text.encode("utf-8", "surrogatepass")
        return self.scan_bytes(name or "record.json", data)

    def scan_path(self, path: PathLike) -> Report:
        """`privacy-audit scan PATH`: a file or a folder, baseline and [[allow]] honoured."""
        text, code = self._native.scan_path(os.fspath(path))
        return Report(json.loads(text), code)

    def list_files(self, root: PathLike) -> List[str]:
        """The files a scan of folder `root` reads, relative to it, named as the file
        system names them (as `os.listdir` would): split them into shards for
        `scan_files`. A folder the walk could not read raises, rather than leaving its
        files out of the plan."""
        return [os.fspath(p) for p in self._native.list_files(os.fspath(root))]

    def scan_files(self, root: PathLike, files: Sequence[str]) -> Report:
        """One shard of a scan of `root`: `files` as `list_files` names them. Shards
        merged with `merge_reports` give the report of a scan of the whole folder. A
        name that is absolute, holds `..`, is missing or names a folder raises."""
        text, code = self._native.scan_files(os.fspath(root), list(files))
        return Report(json.loads(text), code)


def _rebuild(config: Optional[str], threads: Optional[int]) -> "Scanner":
    return Scanner(config, threads, _discover=config is not None)


def _plain(value: Any) -> Any:
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return None
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def merge_reports(
    reports: Iterable[Union[Report, dict, str]], config: Optional[PathLike] = None
) -> Report:
    """Shards' reports as one: one file list, one summary, one exit code
    (`privacy-audit report merge`). Reports made with other rules are refused."""
    named: List[Tuple[str, str]] = []
    for i, r in enumerate(reports):
        if isinstance(r, Report):
            text = r.to_json()
        elif isinstance(r, dict):
            text = json.dumps(r, ensure_ascii=False)
        else:
            text = r
        named.append((f"report #{i + 1}", text))
    text, code = _native.merge_reports(named, os.fspath(config) if config is not None else None)
    return Report(json.loads(text), code)


