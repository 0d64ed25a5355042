#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each (default 60) and prints, per target, the
# executions and coverage libFuzzer reports. Needs a nightly toolchain and cargo-fuzz
# (`cargo install cargo-fuzz`). A crash leaves its input in fuzz/artifacts/<target>/:
# turn it into a regression test before fixing.
#
#   scripts/fuzz.sh 600                          # ten minutes per target
#   scripts/fuzz.sh 600 json_tokenizer decoders  # only these targets
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
secs=${1:-60}
shift || true
targets=(json_tokenizer decoders manifest config_and_rules scan_blob git_index)
if [ "$#" -gt 0 ]; then targets=("$@"); fi
mkdir -p corpus
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t"
  if [ -d "seeds/$t" ]; then cp -n seeds/"$t"/* "corpus/$t/" 2>/dev/null || true; fi
  log="$(mktemp)"
  if cargo +nightly fuzz run "$t" -- -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 >"$log" 2>&1; then
    status=ok
  else
    status="FAILED (see fuzz/artifacts/$t)"
  fi
  last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
  echo "$t: $status — ${last:-no progress line}"
  grep -E 'panicked|SUMMARY|ERROR' "$log" | head -5 || true
  rm -f "$log"
done
