#!/usr/bin/env python3
"""Deterministic synthetic dataset corpus for throughput measurements.

    scripts/gen-corpus.py OUT_DIR [SIZE_MIB] [SEED]

Writes every seed format until about SIZE_MIB of files exist (gzip counted compressed),
in files of about 128 KiB, so 256 MiB is about 2,000 files:

  - eval-case v1 JSONL, LLM QA cases JSONL, eval-dataset JSONL (tool traces);
  - EXAID run logs (`.jsonl.gz`, one gzip member) with a `SHA256SUMS` beside them;
  - evidence packs (`evidence_pack.json`, pretty-printed) with their `transcript.json`;
  - markdown notes.

Prose is drawn from a 700-word vocabulary with a Zipf law, so words such as "token",
"key" or "password" occur about as often as in real evaluation text. It also carries
the look-alikes a precise scanner must ignore: sha256 digests, UUIDs, versions,
timestamps, relative paths, URLs, reserved example domains and documentation IPs. About
one record in 1,000 carries a planted violation (e-mail, key, path, host, IP, phone);
the number planted is printed at the end."""
import argparse
import gzip
import hashlib
import json
import os
import random
import uuid

_args = argparse.ArgumentParser(
    description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter
)
_args.add_argument("out", metavar="OUT_DIR", help="folder to write (created)")
_args.add_argument("size_mib", metavar="SIZE_MIB", type=int, nargs="?", default=256)
_args.add_argument("seed", metavar="SEED", type=int, nargs="?", default=1)
_parsed = _args.parse_args()
out = _parsed.out
size_mib = _parsed.size_mib
seed = _parsed.seed
rng = random.Random(seed)

COMMON = """the of and to a in is that for it as was with be by on not he this are or his from at which
but have an they you were her she there been one all we their has would when if so no will more can
out up who them some into time only do could other than then now my its our two first may any like
new these over such after also made most very should where between each just those how state
system model data result method case value process form group number point work part use level
order line set study change rate show high base user agent answer question context policy source
claim evidence report review check score task goal tool call output input step plan test run
prompt response reference label metric error failure success signal window buffer event record
field schema version batch split train eval sample dataset benchmark baseline variant seed
summary detail reason note issue risk patient clinical finding diagnosis treatment symptom dose
history follow visit care team member document page section table figure item list entry option
config setting default value range limit count total average median mean token tokens key keys
password secret access account session request server client service network host address domain
path file folder directory upload download export import build release deploy update install
""".split()
DOMAIN = """oracle gate boundary novelty completeness uncertainty rationale differential recommendation
grounding citation hallucination adherence relevance coherence fluency empathy helpfulness intent
resolution trace span latency throughput regression calibration annotator rubric judge verdict
pass fail partial abstain escalate redact anonymise pseudonymise provenance capture metadata
surface logical reduced structure stoplist extractor linker concept entity cui spacy ontology
retrieval rerank chunk embedding vector index query passage snippet transcript turn role system
assistant user message content completion instruction guideline constraint requirement criterion
""".split()
RARE = [f"{a}{b}" for a in "pre re un over under inter multi sub".split()
        for b in "process model check score label sample review report signal window".split()]
WORDS = COMMON + DOMAIN + RARE
# Zipf: the k-th word has weight 1/(k+10); words shuffled so domain terms mix in.
rng.shuffle(WORDS)
CUM = []
acc = 0.0
for k in range(len(WORDS)):
    acc += 1.0 / (k + 10)
    CUM.append(acc)

PLANTS = ["contact ion.popescu@gmail.com", "key AKIAPYCDYBK377OXTZQ6", "saved /home/jdoe/run.json",
          "host gpu-17.ml.internal", "peer 10.0.3.17", "call +40 721 234 567",
          "token ghp_8mZq2LkP0vX7rT4nB9sW1cY6dF3hJ5gA0eR2",
          "C:\\Users\\ana.popescu\\Desktop\\notes.txt"]
planted = 0


def look_alike():
    k = rng.randrange(9)
    if k == 0:
        return "sha256:" + hashlib.sha256(rng.randbytes(8)).hexdigest()
    if k == 1:
        return str(uuid.UUID(int=rng.getrandbits(128)))
    if k == 2:
        return f"v{rng.randrange(4)}.{rng.randrange(20)}.{rng.randrange(30)}"
    if k == 3:
        return f"2026-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}T{rng.randrange(24):02d}:{rng.randrange(60):02d}:00Z"
    if k == 4:
        return f"data/runs/V{rng.randrange(3)}/case-{rng.randrange(10**6):06d}.jsonl.gz"
    if k == 5:
        return f"https://docs.example.com/{rng.choice(WORDS)}/{rng.choice(WORDS)}"
    if k == 6:
        return f"reviewer{rng.randrange(100)}@example.org"
    if k == 7:
        return f"192.0.2.{rng.randrange(256)}"
    return f"{rng.randrange(1000)}.{rng.randrange(100):02d} ms"


def prose(n):
    global planted
    words = rng.choices(WORDS, cum_weights=CUM, k=n)
    if rng.random() < 0.08:
        words.insert(rng.randrange(len(words) + 1), look_alike())
    if rng.random() < 0.001:
        planted += 1
        words.append(rng.choice(PLANTS))
    return " ".join(words)


def sha(i):
    return "sha256:" + hashlib.sha256(str(i).encode()).hexdigest()


def eval_case(i):
    return {"spec": "eval-case-v1", "case_id": f"case/{i % 10000:04d}", "family": rng.choice(["FCE", "RF", "EMF", "EGF", "TBC"]),
            "intent": prose(20), "observed_state": prose(30), "final_claim": prose(12), "claim_supported": rng.random() < .5,
            "human_risk": prose(15), "oracle": {"description": prose(10), "gate": "require_evidence", "requires": [prose(4)]},
            "provenance": {"capture": "metadata-only", "anonymization": "pseudonymised", "source": "dogfood"}}


def qa_case(i):
    return {"id": f"GT-GROUND-{i:05d}", "title": prose(5), "category": "Grounding", "tags": ["citation_check"],
            "severity_expectation": "S2", "turns": [{"role": "system", "content": prose(15)}, {"role": "user", "content": prose(60)}],
            "expected_behavior": {"must_do": [prose(5)], "must_not_do": [prose(5)], "pass_criteria": [prose(6)]},
            "sources": [{"source_id": "SRC-1", "title": "Policy", "text": prose(120)}]}


def eval_dataset(i):
    tools = ["search_docs", "get_course", "schedule_exam"]
    return {"case_id": f"tutor-{i % 1000:03d}", "scenario_id": f"SC-{i % 97:03d}", "agent_name": "tutor", "phase": "assessment",
            "difficulty": rng.choice(["easy", "medium", "hard"]), "quality_band": rng.choice(["excellent", "good", "mixed", "poor"]),
            "topic_family": rng.choice(["AZ-900", "AZ-104", "AI-102", "SC-900"]), "learner_level": "beginner",
            "question": prose(25), "context": prose(60), "model_answer": prose(80), "reference_answer": prose(70),
            "task_goal": prose(12), "relevant_context": prose(20), "available_tools": tools,
            "expected_tool_calls": [{"tool": "search_docs", "arguments": {"query": prose(4)}, "reason": prose(8)}],
            "invoked_tool_calls": [{"tool": "search_docs", "arguments": {"query": prose(4)}, "outcome": "ok"}],
            "required_evals": ["RelevanceExplain", "CoherenceExplain"], "threshold_profile": "default", "expected_contract": "EngagementPlanOutput"}


def run_log(i):
    recs = [{"record_type": "run_meta", "schema_version": "1.5.0", "case_id": f"case-{i:08d}", "variant_id": "V0",
             "stoplists_provenance": {"stop_entities_hash": sha(i), "stop_cuis_hash": sha(i + 1)},
             "concept_extractor": {"spacy_version": "3.7.4", "linker_kb_version": "2023AB"},
             "mas_run_id": f"mas_{i:08x}", "eval_run_id": f"eval-V0-{i:08x}", "history_k": 3,
             "timestamp_derivation": {"source": "t_emitted_ms"}, "determinism": {"gzip_mtime": 0}}]
    for k in range(700):
        recs.append({"record_type": "summary_event", "case_id": f"case-{i:08d}", "variant_id": "V0", "event_index": k,
                     "event_id": f"case-{i:08d}-V0-se-{k:03d}", "t_emitted_ms": 1_700_000_000_000 + k * 137,
                     "summary_semantics_text": prose(80), "new_buffer_text_hash": sha(k), "llm_usage": {"model_id": "gpt-4o-mini"}})
    return "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in recs).encode()


def jsonl(records):
    return "".join(json.dumps(r) + "\n" for r in records).encode()


os.makedirs(out, exist_ok=True)
target, total, n = size_mib << 20, 0, 0
sums = {}
while total < target:
    kind = n % 6
    d = os.path.join(out, f"part{n % 50:02d}")
    os.makedirs(d, exist_ok=True)
    files = []
    if kind == 0:
        files.append((f"cases-{n}.jsonl", jsonl(eval_case(n * 330 + j) for j in range(330))))
    elif kind == 1:
        files.append((f"qa-{n}.jsonl", jsonl(qa_case(n * 1000 + j) for j in range(90))))
    elif kind == 2:
        data = gzip.compress(run_log(n), mtime=0)
        files.append((f"case-{n}.jsonl.gz", data))
        sums.setdefault(d, []).append((hashlib.sha256(data).hexdigest(), f"case-{n}.jsonl.gz"))
    elif kind == 3:
        transcript = [{"role": rng.choice(["user", "assistant"]), "content": prose(200)} for _ in range(25)]
        t_bytes = json.dumps(transcript, indent=2).encode()
        pack = {"category": "PII_DISCLOSURE", "pass": True, "findings": [],
                "transcript_sha256": hashlib.sha256(t_bytes).hexdigest(), "transcript": transcript}
        sub = os.path.join(d, f"pack-{n}")
        os.makedirs(sub, exist_ok=True)
        files.append((os.path.join(f"pack-{n}", "evidence_pack.json"), json.dumps(pack, indent=2).encode()))
        files.append((os.path.join(f"pack-{n}", "transcript.json"), t_bytes))
    elif kind == 4:
        files.append((f"dataset-{n}.jsonl", jsonl(eval_dataset(j) for j in range(130))))
    else:
        files.append((f"notes-{n}.md", ("\n".join(prose(15) for _ in range(1300)) + "\n").encode()))
    for name, data in files:
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)
        total += len(data)
    n += 1
for d, entries in sums.items():
    with open(os.path.join(d, "SHA256SUMS"), "w") as f:
        f.writelines(f"{h}  {name}\n" for h, name in entries)
count = sum(len(fs) for _, _, fs in os.walk(out))
print(f"{count} files, {total / (1 << 20):.1f} MiB in {out}; {planted} planted violations")
