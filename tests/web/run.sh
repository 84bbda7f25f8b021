#!/usr/bin/env bash
# Headless-browser test of the web page of `bitsift serve`.
#
# Builds nothing: expects target/release/bitsift (under $CARGO_TARGET_DIR when set, or the
# binary named by $BITSIFT), Debian's
# Chromium at /usr/bin/chromium (or $CHROMIUM) and Node.js. Installs playwright-core into
# tests/web/node_modules from the committed package-lock.json when it is missing (it never
# downloads a browser). Then: builds the demo index into a temporary folder, writes a metadata
# TSV, starts the server on a free port of 127.0.0.1, runs page.test.mjs against it and always
# stops the server. Writes docs/screenshot-search.png.
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
server_pid=""
cleanup() {
    if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
        kill -TERM "$server_pid" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

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

# Port 0: the kernel picks a free port, and the server prints the address it got.
say "starting bitsift serve on a free port of 127.0.0.1"
"$bitsift" serve -i "$work/demo.cobs_compact" --metadata "$work/metadata.tsv" \
    --listen 127.0.0.1:0 --max-query-bases 5000 --cache-size 16M 2> "$work/server.log" &
server_pid=$!

url=""
for _ in $(seq 300); do
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; fail "the server exited at start-up"; }
    url="$(grep -o 'http://127\.0\.0\.1:[0-9]*/' "$work/server.log" | head -n 1 || true)"
    if [[ -n "$url" ]] && curl -fsS --max-time 2 "${url}healthz" >/dev/null 2>&1; then break; fi
    url=""
    sleep 0.1
done
[[ -n "$url" ]] || { cat "$work/server.log" >&2; fail "the server did not answer ${url:-(no address)}healthz within 30 s"; }
say "server up at $url (healthz ok)"

say "running page.test.mjs in headless Chromium ($("$chromium" --version 2>/dev/null | head -n 1))"
status=0
BITSIFT_URL="$url" CHROMIUM="$chromium" REPO_ROOT="$root" \
    SCREENSHOT="${SCREENSHOT:-$root/docs/screenshot-search.png}" \
    node --test --test-reporter=spec "$here/page.test.mjs" || status=$?
if [[ $status -ne 0 ]]; then
    say "server log:"; sed 's/^/    /' "$work/server.log" >&2
    fail "the web page test failed"
fi
say "all web page checks passed"
