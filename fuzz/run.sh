#!/usr/bin/env bash
# Runs one cargo-fuzz target for a fixed time on this machine's stable toolchain and prints the
# executions and findings. Usage: fuzz/run.sh TARGET SECONDS [extra libFuzzer args...]
#
# RUSTC_BOOTSTRAP=1 lets stable rustc accept the -Zsanitizer=address flag cargo-fuzz passes, so the
# target runs under AddressSanitizer and libFuzzer's -malloc_limit_mb catches any single allocation
# above the limit (an allocation from an untrusted length). Set FUZZ_SANITIZER=none to build without
# sanitizers (plain stable flags; faster, but only the RSS limit guards memory).
set -euo pipefail
target=${1:?usage: fuzz/run.sh TARGET SECONDS [libFuzzer args...]}
seconds=${2:?usage: fuzz/run.sh TARGET SECONDS [libFuzzer args...]}
shift 2
cd "$(dirname "$0")"
corpus="corpus/$target"
mkdir -p "$corpus"
seeds=()
[ -d "seeds/$target" ] && seeds+=("seeds/$target")
sanitizer=(); [ "${FUZZ_SANITIZER:-address}" = none ] && sanitizer=(-s none)
# FUZZ_DEBUG_ASSERTIONS=1 builds with debug assertions (the crates' internal cross-checks, e.g. serde-brson's
# one-pass decode against its careful pass).
assertions=(); [ "${FUZZ_DEBUG_ASSERTIONS:-0}" = 1 ] && assertions=(-a)
log="artifacts/$target.log"
mkdir -p artifacts
set +e
RUSTC_BOOTSTRAP=1 cargo fuzz run "${sanitizer[@]}" "${assertions[@]}" "$target" "$corpus" "${seeds[@]}" -- \
  -max_total_time="$seconds" -malloc_limit_mb=512 -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 "$@" \
  2>&1 | tee "$log" | grep -E '^(#[0-9]+ *(INITED|DONE)|Done|stat::number_of_executed_units|stat::peak_rss_mb|==[0-9]+==|SUMMARY|.*(panicked|deadly signal|out-of-memory|malloc\(|Test unit written))'
status=${PIPESTATUS[0]}
set -e
echo "target $target: exit $status; full log in fuzz/$log; corpus fuzz/$corpus ($(ls "$corpus" | wc -l) inputs)"
exit "$status"
