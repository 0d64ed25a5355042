#!/usr/bin/env python3
"""Deterministic synthetic dataset corpus for throughput measurements.

    scripts/gen-corpus.py OUT_DIR [SIZE_MIB] [SEED]

Writes eval-case JSONL, LLM QA JSONL, EXAID run logs (.jsonl.gz), evidence packs and
markdown notes until about SIZE_MIB of files exist (gzip counted compressed). About one
record in 500 carries a planted violation (e-mail, key, path, host, IP, phone)."""
import gzip
import hashlib
import json
import os
import random
import sys

out, size_mib, seed = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 100, int(sys.argv[3]) if len(sys.argv) > 3 else 1
rng = random.Random(seed)
WORDS = ("agent claim evidence oracle gate tool boundary state report summary clinical patient "
         "finding differential rationale uncertainty recommendation window trace buffer flush "
         "decision novelty value completeness model prompt completion token latency schema").split()
PLANTS = ["contact ion.popescu@gmail.com", "key AKIAPYCDYBK377OXTZQ6", "saved /home/jdoe/run.json",
          "host gpu-17.ml.internal", "peer 10.0.3.17", "call +40 721 234 567"]


def prose(n):
    s = " ".join(rng.choice(WORDS) for _ in range(n))
    if rng.random() < 0.002:
        s += " " + rng.choice(PLANTS)
    return s


def sha(i):
    return "sha256:" + hashlib.sha256(str(i).encode()).hexdigest()


def eval_case(i):
    return {"spec": "eval-case-v1", "case_id": f"case/{i % 10000:04d}", "family": rng.choice(["FCE", "RF", "EMF", "EGF", "TBC"]),
            "intent": prose(20), "observed_state": prose(30), "final_claim": prose(12), "claim_supported": rng.random() < .5,
            "human_risk": prose(15), "oracle": {"description": prose(10), "gate": "require_evidence", "requires": [prose(4)]},
            "provenance": {"capture": "metadata-only", "anonymization": "pseudonymised", "source": "dogfood"}}


def qa_case(i):
    return {"id": f"GT-GROUND-{i:04d}", "title": prose(5), "category": "Grounding", "tags": ["citation_check"],
            "severity_expectation": "S2", "turns": [{"role": "system", "content": prose(15)}, {"role": "user", "content": prose(60)}],
            "expected_behavior": {"must_do": [prose(5)], "must_not_do": [prose(5)], "pass_criteria": [prose(6)]},
            "sources": [{"source_id": "SRC-1", "title": "Policy", "text": prose(120)}]}


def run_log(i):
    recs = [{"record_type": "run_meta", "schema_version": "1.5.0", "case_id": f"case-{i:08d}", "variant_id": "V0",
             "stoplists_provenance": {"stop_entities_hash": sha(i), "stop_cuis_hash": sha(i + 1)},
             "concept_extractor": {"spacy_version": "3.7.4", "linker_kb_version": "2023AB"},
             "mas_run_id": f"mas_{i:08x}", "eval_run_id": f"eval-V0-{i:08x}", "history_k": 3,
             "timestamp_derivation": {"source": "t_emitted_ms"}, "determinism": {"gzip_mtime": 0}}]
    for k in range(200):
        recs.append({"record_type": "summary_event", "case_id": f"case-{i:08d}", "variant_id": "V0", "event_index": k, "event_id": f"case-{i:08d}-V0-se-{k:03d}",
                     "summary_semantics_text": prose(80), "new_buffer_text_hash": sha(k), "llm_usage": {"model_id": "gpt-4o-mini"}})
    return "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in recs).encode()


os.makedirs(out, exist_ok=True)
target, total, n = size_mib << 20, 0, 0
while total < target:
    kind = n % 5
    d = os.path.join(out, f"part{n % 40:02d}")
    os.makedirs(d, exist_ok=True)
    if kind == 0:
        data = "".join(json.dumps(eval_case(n * 300 + j)) + "\n" for j in range(300)).encode()
        path = os.path.join(d, f"cases-{n}.jsonl")
    elif kind == 1:
        data = "".join(json.dumps(qa_case(n * 100 + j)) + "\n" for j in range(100)).encode()
        path = os.path.join(d, f"qa-{n}.jsonl")
    elif kind == 2:
        data = gzip.compress(run_log(n), mtime=0)
        path = os.path.join(d, f"case-{n}.jsonl.gz")
    elif kind == 3:
        pack = {"category": "PII_DISCLOSURE", "pass": True, "findings": [], "transcript": [{"role": "assistant", "content": prose(200)} for _ in range(40)]}
        data = json.dumps(pack, indent=2).encode()
        path = os.path.join(d, f"evidence_pack-{n}.json")
    else:
        data = ("\n".join(prose(15) for _ in range(2000)) + "\n").encode()
        path = os.path.join(d, f"notes-{n}.md")
    with open(path, "wb") as f:
        f.write(data)
    total += len(data)
    n += 1
print(f"{n} files, {total / (1 << 20):.1f} MiB in {out}")
