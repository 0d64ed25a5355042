"""Screen a Hugging Face `datasets` dataset before it is pushed anywhere: add a
`privacy_findings` column (masked findings per row) and keep the clean rows.

    python hf_datasets.py            # a small in-memory example
"""

from __future__ import annotations

from typing import Dict, List

import datasets

import privacy_audit as pa

SCANNER = pa.Scanner()


def add_findings(row: Dict) -> Dict[str, List[Dict]]:
    found = SCANNER.scan_record(row, name="row.json")
    # The dataset's own columns stay as they are; findings are masked dictionaries.
    return {"privacy_findings": [f.to_dict() for f in found]}


def screen(ds: "datasets.Dataset") -> "tuple[datasets.Dataset, datasets.Dataset]":
    """The dataset with a `privacy_findings` column, and only its clean rows."""
    annotated = ds.map(add_findings)
    clean = annotated.filter(lambda r: not r["privacy_findings"])
    return annotated, clean


def main() -> None:
    ds = datasets.Dataset.from_list(
        [
            {"case_id": "c1", "prompt": "Summarise the attached report."},
            {"case_id": "c2", "prompt": "Mail the result to ion.popescu@gmail.com"},
            {"case_id": "c3", "prompt": "Read /home/ionpopescu/runs/out.json"},
        ]
    )
    annotated, clean = screen(ds)
    for row in annotated:
        rules = [f["rule_id"] for f in row["privacy_findings"]]
        print(row["case_id"], rules or "clean")
    print(f"{len(clean)} of {len(ds)} rows kept")


if __name__ == "__main__":
    main()
