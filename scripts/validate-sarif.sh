#!/usr/bin/env bash
# Validates reuse-check's SARIF output with Microsoft's SARIF validator (`sarif-multitool validate`:
# the JSON schema and the SARIF SDK's rules), installed from npm into .tools/ (gitignored) the first
# time and reused after. It runs offline once installed.
#
#   scripts/validate-sarif.sh               # the SARIF of a check of fixtures/
#   scripts/validate-sarif.sh FILE.sarif...  # these files
#
# Exit status: 0 when the validator reports no error (warnings and notes are printed, not fatal),
# 1 when it reports errors, 2 when it could not run.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

version="5.7.0"
tools="$root/.tools"
multitool="$tools/node_modules/.bin/sarif-multitool"
installed="$tools/node_modules/@microsoft/sarif-multitool/package.json"

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    echo "validate-sarif: node and npm are needed (apt-get install nodejs npm)" >&2
    exit 2
fi
if [[ ! -x "$multitool" ]] || ! grep -q "\"version\": \"$version\"" "$installed" 2>/dev/null; then
    echo "validate-sarif: installing @microsoft/sarif-multitool@$version into .tools/" >&2
    npm install --prefix "$tools" --no-audit --no-fund --loglevel=error "@microsoft/sarif-multitool@$version" >&2
fi
# The platform package's postinstall only marks the binary executable; npm may skip install scripts.
for bin in "$tools"/node_modules/@microsoft/sarif-multitool-*/Sarif.Multitool; do
    [[ -f "$bin" && ! -x "$bin" ]] && chmod u+x "$bin"
done
# The validator is a .NET program; without ICU it still runs in invariant-globalization mode.
export DOTNET_SYSTEM_GLOBALIZATION_INVARIANT="${DOTNET_SYSTEM_GLOBALIZATION_INVARIANT:-1}"
export DOTNET_CLI_TELEMETRY_OPTOUT=1

out_dir="${CARGO_TARGET_DIR:-$root/target}/validate-sarif"
mkdir -p "$out_dir"

files=("$@")
if [[ ${#files[@]} -eq 0 ]]; then
    sarif="$out_dir/fixtures.sarif"
    # The fixtures have error-level findings on purpose: exit status 1 is expected, 2 is not.
    status=0
    cargo run -q -p reuse-check -- fixtures --format sarif >"$sarif" || status=$?
    if [[ $status -ne 0 && $status -ne 1 ]]; then
        echo "validate-sarif: reuse-check failed (exit status $status)" >&2
        exit 2
    fi
    files=("$sarif")
fi

failed=0
for file in "${files[@]}"; do
    log="$out_dir/$(basename "$file").validation.sarif"
    rm -f "$log"
    # The validator exits 0 even when it finds errors: count them in the log it writes.
    if ! "$multitool" validate "$file" --output "$log" --log ForceOverwrite; then
        echo "validate-sarif: sarif-multitool could not validate $file" >&2
        exit 2
    fi
    counts="$(node -e '
        const log = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
        const n = { error: 0, warning: 0, note: 0 };
        for (const run of log.runs || []) {
            for (const r of run.results || []) n[r.level || "warning"] = (n[r.level || "warning"] || 0) + 1;
            for (const inv of run.invocations || []) {
                for (const t of inv.toolExecutionNotifications || []) if (t.level === "error") n.error++;
            }
        }
        console.log(`${n.error} ${n.warning} ${n.note}`);
    ' "$log")"
    read -r errors warnings notes <<<"$counts"
    echo "sarif-multitool validate: $errors errors, $warnings warnings, $notes notes in ${file#"$root"/}"
    [[ "$errors" -eq 0 ]] || failed=1
done
exit "$failed"
