"""The module against the binary: same findings, same masking; nothing visible in
Python holds a value in full; errors are exceptions with the command's messages; the
GIL is released while scanning."""

import gzip
import json
import pickle
import threading

import pytest

import privacy_audit as pa
from conftest import REALDATA, SAMPLE, cli_json, timeless

EMAIL = "ion.popescu@gmail.com"
AWS = "AKIAZ7QW3RT5YU2IOPLM"
HOST = "gpu-07.corp.internal"
PLANTED = [EMAIL, AWS, HOST, "/home/ionpopescu/runs"]


def test_scan_path_equals_the_binary_on_the_sample_dataset():
    report = pa.Scanner().scan_path(SAMPLE)
    expected, code = cli_json("scan", str(SAMPLE))
    assert report.exit_code == code == 1
    assert timeless(report.to_dict()) == timeless(expected)


@pytest.mark.skipif(not REALDATA.is_dir(), reason="shared/realdata is not beside the repository")
def test_scan_path_equals_the_binary_on_real_data():
    report = pa.Scanner().scan_path(REALDATA)
    expected, code = cli_json("scan", str(REALDATA))
    assert report.exit_code == code
    assert timeless(report.to_dict()) == timeless(expected)
    assert len(report.findings) > 100


def test_scan_bytes_reads_the_format_from_the_name(tmp_path):
    line = json.dumps({"note": f"mail {EMAIL}", "host": HOST}) + "\n"
    s = pa.Scanner()
    plain = s.scan_bytes("cases.jsonl", line.encode())
    zipped = s.scan_bytes("cases.jsonl.gz", gzip.compress(line.encode()))
    assert {f.rule_id for f in plain} == {"email.address", "hostname.internal"}
    assert [f.to_dict() for f in zipped] == [
        {**f.to_dict(), "path": "cases.jsonl.gz"} for f in plain
    ]
    (tmp_path / "cases.jsonl").write_text(line)
    expected, _ = cli_json("scan", str(tmp_path / "cases.jsonl"))
    assert [f["excerpt"] for f in expected["findings"]] == [f.excerpt for f in plain]
    assert [f["fingerprint"] for f in expected["findings"]] == [f.fingerprint for f in plain]


def test_scan_record_and_the_finding_object():
    (f,) = pa.Scanner().scan_record({"contact": EMAIL}, name="case-7.json")
    assert (f.rule_id, f.path, f.json_pointer, f.line) == ("email.address", "case-7.json", "/contact", 1)
    with pytest.raises(Exception):
        f.rule_id = "x"  # frozen
    assert pa.Finding(**f.to_dict()) == f


def test_nothing_python_can_see_holds_a_value_in_full(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    record = {"note": f"mail {EMAIL} from {HOST}", "key": AWS, "path": "/home/ionpopescu/runs/a.json"}
    (data / "a.jsonl").write_text(json.dumps(record) + "\n")
    s = pa.Scanner()
    seen = []
    for f in s.scan_record(record) + s.scan_path(data).findings:
        seen += [repr(f), json.dumps(f.to_dict()), *map(str, f.to_dict().values())]
    report = s.scan_path(data)
    seen += [report.to_json(), repr(report), json.dumps(report.summary)]
    for bad in [b"\x1f\x8b\x08\x00" + AWS.encode()]:
        with pytest.raises(pa.PrivacyAuditError) as e:
            s.scan_bytes(f"{AWS}.json.gz", bad)
        seen.append(str(e.value))
    assert seen
    for text in seen:
        for value in PLANTED:
            assert value not in text, text


def test_errors_are_exceptions_with_the_commands_message(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[scan]\nfail_on = 3\n")
    with pytest.raises(pa.PrivacyAuditError) as e:
        pa.Scanner(bad)
    assert str(bad) in str(e.value) and "line 2" in str(e.value)
    with pytest.raises(pa.PrivacyAuditError) as e:
        pa.Scanner().scan_path(tmp_path / "nope")
    assert str(e.value).count("No such file") == 1


def test_a_scanner_travels_to_another_process():
    s = pickle.loads(pickle.dumps(pa.Scanner()))
    assert s.scan_record({"contact": EMAIL})


def test_the_gil_is_released_while_scanning():
    # A large input keeps the native scan busy; a Python thread must keep running
    # meanwhile, which it cannot while the scan holds the GIL.
    line = json.dumps({"text": "plain words and numbers 12345 " * 40}) + "\n"
    data = (line * 40_000).encode()
    s = pa.Scanner()
    done = threading.Event()
    ticks = 0

    def scan():
        s.scan_bytes("big.jsonl", data)
        done.set()

    t = threading.Thread(target=scan)
    t.start()
    while not done.is_set():
        ticks += 1
    t.join()
    assert ticks > 10_000


def test_merged_shards_equal_one_scan():
    s = pa.Scanner()
    files = s.list_files(SAMPLE)
    shards = [s.scan_files(SAMPLE, files[i::2]) for i in range(2)]
    merged = pa.merge_reports(shards)
    whole = s.scan_path(SAMPLE)
    assert merged.exit_code == whole.exit_code == 1
    assert timeless(merged.to_dict()) == timeless(whole.to_dict())


def test_the_command_is_installed_with_the_package():
    import pathlib
    import subprocess
    import sys

    # pip puts the script beside the interpreter it installed for.
    script = pathlib.Path(sys.executable).parent / "privacy-audit"
    assert script.exists()
    out = subprocess.run([str(script), "scan", str(SAMPLE), "--quiet"], check=False)
    assert out.returncode == 1


def test_a_shard_plan_never_leaves_files_out_silently(tmp_path):
    s = pa.Scanner()
    data = tmp_path / "data"
    (data / "batch1").mkdir(parents=True)
    (data / "batch1" / "x.jsonl").write_text(json.dumps({"note": EMAIL}) + "\n")
    (tmp_path / "outside.jsonl").write_text(json.dumps({"note": EMAIL}) + "\n")
    with pytest.raises(pa.PrivacyAuditError):
        s.list_files(tmp_path / "typo")
    for bad in (["batch1"], ["../outside.jsonl"], [str(tmp_path / "outside.jsonl")], ["nope.jsonl"]):
        with pytest.raises(pa.PrivacyAuditError):
            s.scan_files(data, bad)
    assert s.scan_files(data, s.list_files(data)).exit_code == 1


def test_names_round_trip_from_list_files_to_scan_files(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "notes\\x.jsonl").write_text(json.dumps({"note": EMAIL}) + "\n")
    (data / "notes\\\\x.jsonl").write_text("{}\n")
    s = pa.Scanner()
    files = s.list_files(data)
    report = s.scan_files(data, files)
    whole = s.scan_path(data)
    assert timeless(report.to_dict()) == timeless(whole.to_dict())


def test_a_pickled_scanner_judges_with_the_config_it_found(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "privacy-audit.toml").write_text('[scan]\nfail_on = "critical"\n')
    (tmp_path / "a.jsonl").write_text(json.dumps({"note": EMAIL}) + "\n")
    monkeypatch.chdir(repo)
    s = pa.Scanner()
    monkeypatch.chdir(tmp_path)
    again = pickle.loads(pickle.dumps(s))
    assert again.scan_path(tmp_path / "a.jsonl").exit_code == 0
    assert pa.Scanner().scan_path(tmp_path / "a.jsonl").exit_code == 1


def test_records_with_values_json_cannot_hold_are_still_judged():
    import datetime
    import math

    found = pa.Scanner().scan_record(
        {"a": math.nan, "when": datetime.datetime(2026, 1, 2), "raw": EMAIL.encode(), 3: EMAIL}
    )
    assert {f.rule_id for f in found} == {"email.address"}
    assert all(f.rule_id != "format.invalid_json" for f in found)


def test_scan_bytes_accepts_what_the_config_allows(tmp_path):
    # The same run as `scan`: an [[allow]] entry for the name given accepts its finding.
    config = tmp_path / "privacy-audit.toml"
    config.write_text(
        '[[allow]]\npath = "fixtures/*.json"\nrule = "email.address"\n'
        'reason = "fictional customers"\n'
    )
    data = json.dumps({"contact": EMAIL}).encode()
    s = pa.Scanner(config=config)
    assert s.scan_bytes("fixtures/people.json", data) == []
    assert [f.rule_id for f in s.scan_bytes("cases/people.json", data)] == ["email.address"]


def test_fix_bytes_rewrites_consistently_and_shows_no_value():
    s = pa.Scanner()
    line = json.dumps({"note": f"mail {EMAIL}", "host": HOST}) + "\n"
    fixed, changes = s.fix_bytes("a.jsonl", line.encode())
    again, _ = s.fix_bytes("b.jsonl.gz", gzip.compress(line.encode()))
    assert EMAIL.encode() not in fixed and HOST.encode() not in fixed
    assert gzip.decompress(again) == fixed, "one value, one placeholder, in every call"
    assert {c["rule_id"] for c in changes} == {"email.address", "hostname.internal"}
    assert EMAIL not in json.dumps(changes) and HOST not in json.dumps(changes)
    assert s.scan_bytes("a.jsonl", fixed) == []
    json.loads(fixed)
