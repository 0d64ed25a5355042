"""The pipeline examples run for real: a 2-worker Dask cluster whose merged report
equals a single-process scan, and a `datasets` map and filter."""

import gzip
import json
import pathlib
import sys

import pytest

import privacy_audit as pa
from conftest import ROOT, timeless

sys.path.insert(0, str(ROOT / "python" / "examples"))


def shards(root: pathlib.Path, n: int = 12) -> None:
    """A folder of JSONL and gzip shards, a few of them with leaks."""
    for i in range(n):
        rows = [{"case_id": f"c{i}-{j}", "prompt": f"question {j} about topic {i}"} for j in range(200)]
        if i % 4 == 1:
            rows[7]["prompt"] = "mail ion.popescu@gmail.com"
        if i % 4 == 3:
            rows[11]["trace"] = "/home/ionpopescu/runs/eval.json"
        text = "".join(json.dumps(r) + "\n" for r in rows)
        sub = root / f"part-{i // 4}"
        sub.mkdir(parents=True, exist_ok=True)
        if i % 2:
            (sub / f"shard-{i:03}.jsonl.gz").write_bytes(gzip.compress(text.encode()))
        else:
            (sub / f"shard-{i:03}.jsonl").write_text(text)


def test_a_two_worker_dask_cluster_gives_the_report_of_one_scan(tmp_path):
    pytest.importorskip("distributed")
    import dask_scan
    from dask.distributed import Client, LocalCluster

    data = tmp_path / "data"
    shards(data)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster) as client:
            assert len(client.scheduler_info()["workers"]) == 2
            merged = dask_scan.scan_folder(str(data), client, shards=5)
    whole = pa.Scanner().scan_path(data)
    assert merged.exit_code == whole.exit_code == 1
    assert timeless(merged.to_dict()) == timeless(whole.to_dict())
    assert merged.summary["files_scanned"] == 12


def test_a_fix_on_dask_gives_one_placeholder_per_value_across_shards(tmp_path):
    pytest.importorskip("distributed")
    import dask_scan
    from dask.distributed import Client, LocalCluster

    data, out = tmp_path / "data", tmp_path / "fixed"
    (data / "a").mkdir(parents=True)
    (data / "b").mkdir(parents=True)
    line = json.dumps({"note": "mail ion.popescu@gmail.com"}) + "\n"
    (data / "a" / "one.jsonl").write_text(line)
    (data / "b" / "two.jsonl").write_text(line)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster) as client:
            changes = dask_scan.fix_folder(str(data), str(out), client, shards=2)
    assert len(changes) == 2 and "ion.popescu" not in json.dumps(changes)
    one, two = (out / "a" / "one.jsonl").read_text(), (out / "b" / "two.jsonl").read_text()
    assert one == two and "@example.com" in one
    assert pa.Scanner().scan_path(out).exit_code == 0


def test_the_datasets_example_adds_a_column_and_filters():
    pytest.importorskip("datasets")
    import hf_datasets
    import datasets

    ds = datasets.Dataset.from_list(
        [{"prompt": "fine"}, {"prompt": "mail ion.popescu@gmail.com"}]
    )
    annotated, clean = hf_datasets.screen(ds)
    assert [len(r["privacy_findings"]) for r in annotated] == [0, 1]
    assert list(clean["prompt"]) == ["fine"]
    assert "ion.popescu@gmail.com" not in json.dumps(list(annotated["privacy_findings"]))
