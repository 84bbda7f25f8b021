#!/usr/bin/env bash
# Headless-browser test of the web page of `bitsift serve`.
#
# Builds nothing: expects target/release/bitsift (under $CARGO_TARGET_DIR when set, or the
# binary named by $BITSIFT), Debian's
# Chromium at /usr/bin/chromium (or $CHROMIUM) and Node.js. Installs playwright-core into
# tests/web/node_modules from the committed package-lock.json when it is missing (it never
# downloads a browser). Then: builds the demo index into a temporary folder, writes a metadata
# TSV, starts the server on a free port of 127.0.0.1; builds a synthetic index of 600,000
# documents with a metadata TSV of 40 uneven species (a few thousand documents unlisted) and
# starts a second server on it; runs page.test.mjs against both and always stops the servers.
# Writes docs/screenshot-search.png.
#
#   cargo build --release -p bitsift && bash tests/web/run.sh
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bitsift="${BITSIFT:-${CARGO_TARGET_DIR:-$root/target}/release/bitsift}"
chromium="${CHROMIUM:-/usr/bin/chromium}"

say() { printf '[web] %s\n' "$*"; }
fail() { printf '[web] error: %s\n' "$*" >&2; exit 1; }

[[ -x "$bitsift" ]] || fail "$bitsift not found: run 'cargo build --release -p bitsift' (or set BITSIFT)"
[[ -x "$chromium" ]] || fail "$chromium not found: run 'apt-get install -y chromium' (or set CHROMIUM)"
command -v node >/dev/null || fail "node not found: install Node.js 20 or newer"

if [[ ! -f "$here/node_modules/playwright-core/package.json" ]]; then
    say "installing playwright-core (npm ci; no browser download)"
    (cd "$here" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error)
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/bitsift-web.XXXXXX")"
server_pids=()
stop_server() {
    local pid="$1"
    kill -0 "$pid" 2>/dev/null || return 0
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}
cleanup() {
    for pid in "${server_pids[@]}"; do stop_server "$pid"; done
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Starts `bitsift serve ARGS` on a free port of 127.0.0.1 (port 0: the kernel picks one, and
# the server prints the address it got), logging to $work/NAME.log; waits until it answers
# /healthz and sets $url to its address.
start_server() {
    local name="$1"; shift
    local log="$work/$name.log" pid
    "$bitsift" serve "$@" --listen 127.0.0.1:0 2> "$log" &
    pid=$!
    server_pids+=("$pid")
    url=""
    for _ in $(seq 300); do
        kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; fail "the $name server exited at start-up"; }
        url="$(grep -o 'http://127\.0\.0\.1:[0-9]*/' "$log" | head -n 1 || true)"
        if [[ -n "$url" ]] && curl -fsS --max-time 2 "${url}healthz" >/dev/null 2>&1; then break; fi
        url=""
        sleep 0.1
    done
    [[ -n "$url" ]] || { cat "$log" >&2; fail "the $name server did not answer its healthz within 30 s"; }
    say "$name server up at $url (healthz ok)"
}

say "building the demo index from data/demo/genomes"
"$bitsift" build -q -o "$work/demo.cobs_compact" "$root/data/demo/genomes"

say "writing a metadata TSV for some of the documents"
printf '%s\t%s\t%s\n' \
    document species source \
    Kpn_pMCR_1511_KX377410 "Klebsiella pneumoniae" "plasmid pMCR_1511" \
    Kpn_HS11286_CP003200_pKPHS1-6 "Klebsiella pneumoniae" "HS11286, 6 plasmids" \
    Eco_pBK32602_KU295134 "Escherichia coli" "plasmid pBK32602" \
    Kpn_plasmid12_NC_011385 "Klebsiella pneumoniae" "plasmid 12" \
    Kpn_MGH78578_CP000647_pKPN3-7 "Klebsiella pneumoniae" "MGH78578, 5 plasmids" \
    Sau_N315_NC_002745 "Staphylococcus aureus" "N315 chromosome" \
    > "$work/metadata.tsv"

say "starting bitsift serve on the demo index"
start_server demo -i "$work/demo.cobs_compact" --metadata "$work/metadata.tsv" \
    --max-query-bases 5000 --cache-size 16M
demo_url="$url"

say "building a synthetic index of 600,000 documents"
"$bitsift" synth -q -o "$work/big.cobs_compact" --documents 600000 --genome-size 300

# `info --documents` prints a header block, a blank line, then "block position document" and a
# line per document. Species i of 40 gets about i^2 / 22,140 of the documents (25 to 43,000),
# spread over the ranking; every 200th document is left out of the table (it has no value).
say "writing a metadata TSV of 40 uneven species for it"
"$bitsift" info --documents "$work/big.cobs_compact" | awk -F'\t' '
    BEGIN { for (i = 1; i <= 40; i++) { total += i * i; upto[i] = total }; print "document\tspecies" }
    listing && NF == 3 {
        n++
        if (n % 200 == 0) next
        w = (n * 7919) % total; g = 1
        while (upto[g] <= w) g++
        printf "%s\tSpecies %02d\n", $3, g
        next
    }
    $1 == "block" && $2 == "position" { listing = 1 }' > "$work/big-metadata.tsv"
[[ "$(wc -l < "$work/big-metadata.tsv")" -eq 597001 ]] || fail "the synthetic metadata TSV does not list 597,000 documents"

say "starting bitsift serve on the synthetic index"
start_server big -i "$work/big.cobs_compact" --metadata "$work/big-metadata.tsv"
big_url="$url"

say "running page.test.mjs in headless Chromium ($("$chromium" --version 2>/dev/null | head -n 1))"
status=0
BITSIFT_URL="$demo_url" BITSIFT_BIG_URL="$big_url" CHROMIUM="$chromium" REPO_ROOT="$root" \
    SCREENSHOT="${SCREENSHOT:-$root/docs/screenshot-search.png}" \
    node --test --test-reporter=spec "$here/page.test.mjs" || status=$?
if [[ $status -ne 0 ]]; then
    for name in demo big; do
        say "$name server log:"; sed 's/^/    /' "$work/$name.log" >&2
    done
    fail "the web page test failed"
fi
say "all web page checks passed"
