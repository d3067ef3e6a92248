#!/usr/bin/env bash
# Runs every cargo-fuzz target in fuzz/ on the stable toolchain, FUZZ_SECONDS (default 60,
# at most 60) each, starting from a fresh copy of fuzz/seeds/<target>/. Fails if any target
# finds a crash (a panic, including a failed assert! or an arithmetic overflow).
#
#   .ci/fuzz.sh                    # from the repository root
#   FUZZ_SECONDS=10 .ci/fuzz.sh
#
# Needs only the stable Rust toolchain and a C++ compiler (libfuzzer-sys builds libFuzzer).
# Stable works because the targets are built with `--sanitizer none`: cargo-fuzz then passes
# only stable codegen flags (-Cpasses=sancov-module, -Cllvm-args=-sanitizer-coverage-*, ...);
# its default, AddressSanitizer, needs the nightly-only -Zsanitizer. snowmint denies unsafe
# code but for two audited spots, so ASan would add little. See fuzz/README.md.
#
# The targets build under `--cfg snowmint_test_hooks` (a cached clock the target drives):
# cargo fuzz appends RUSTFLAGS from the environment to its own flags.
set -euo pipefail

export RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }--cfg snowmint_test_hooks"

CARGO_FUZZ_VERSION=0.13.2
MAX_SECONDS=60

cd "$(dirname "${BASH_SOURCE[0]}")/.."

seconds=${FUZZ_SECONDS:-60}
if ! [[ $seconds =~ ^[0-9]+$ ]] || ((seconds < 1)); then
    echo "fuzz: FUZZ_SECONDS must be a positive whole number of seconds, got '$seconds'" >&2
    exit 2
fi
if ((seconds > MAX_SECONDS)); then
    echo "fuzz: FUZZ_SECONDS=$seconds capped to $MAX_SECONDS per target"
    seconds=$MAX_SECONDS
fi

script_start=$SECONDS

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "fuzz: installing cargo-fuzz $CARGO_FUZZ_VERSION"
    install_start=$SECONDS
    cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked
    echo "fuzz: installed cargo-fuzz in $((SECONDS - install_start)) s"
fi
echo "fuzz: $(cargo fuzz --version), $(rustc --version)"

mapfile -t targets < <(cargo fuzz list)
if ((${#targets[@]} == 0)); then
    echo "fuzz: cargo fuzz list found no targets" >&2
    exit 1
fi

log_dir=fuzz/target/fuzz-logs
mkdir -p "$log_dir"
summary=()
failed=()

for target in "${targets[@]}"; do
    seeds=fuzz/seeds/$target
    corpus=fuzz/corpus/$target
    log=$log_dir/$target.log
    if [[ ! -d $seeds ]]; then
        echo "fuzz: no seed directory $seeds for target $target" >&2
        exit 1
    fi

    echo "fuzz: building $target"
    build_start=$SECONDS
    cargo fuzz build --sanitizer none "$target"
    build_seconds=$((SECONDS - build_start))

    # A fresh corpus from the committed seeds (fuzz/corpus is gitignored).
    rm -rf "$corpus"
    mkdir -p "$corpus"
    cp -R "$seeds"/. "$corpus"/

    echo "fuzz: running $target for $seconds s (log: $log)"
    status=0
    cargo fuzz run --sanitizer none "$target" "$corpus" -- \
        -max_total_time="$seconds" -timeout=10 -print_final_stats=1 >"$log" 2>&1 || status=$?

    # On success libFuzzer ends with "Done 113497 runs in 61 second(s)" (it checks the time
    # between inputs, so a run lasts the budget plus at most one input, or -timeout=10 s).
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -n 1 || true)
    corpus_size=$(find "$corpus" -type f | wc -l | tr -d ' ')
    if ((status == 0)) && grep -q '^Done [0-9]* runs' "$log"; then
        line="$target: ok, ${runs:-?} executions in $seconds s, ${cov:-cov: ?}, corpus $corpus_size files, build ${build_seconds} s"
        summary+=("$line")
    else
        echo "fuzz: $target FAILED (exit $status); from $log:" >&2
        if grep -q 'panicked at' "$log"; then
            # The panic message through cargo-fuzz's reproduction hints, without backtraces.
            sed -n '/panicked at/,/^Error: /p' "$log" | grep -Ev '^ +([0-9]+: |at )' >&2
        else
            tail -n 60 "$log" >&2 # a timeout, out-of-memory or build failure
        fi
        artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
        line="$target: FAILED after ${runs:-?} executions, build ${build_seconds} s"
        if [[ -n $artifact ]]; then
            line+=", failing input $artifact; reproduce with: cargo fuzz run --sanitizer none $target $artifact"
        fi
        summary+=("$line")
        failed+=("$target")
    fi
    echo "fuzz: $line"
done

echo
echo "fuzz: summary (total $((SECONDS - script_start)) s)"
for line in "${summary[@]}"; do
    echo "fuzz:   $line"
done
if ((${#failed[@]} > 0)); then
    echo "fuzz: crashes found in: ${failed[*]}" >&2
    exit 1
fi
