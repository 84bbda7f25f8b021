#!/usr/bin/env bash
# The workflow end to end on the bundled genomes: a sharded build (3+ shards) assembled into a
# collection, then a search split over jobs and gathered. Checks that the gathered ranking is
# byte for byte what `bitsift query -i COLLECTION` prints (with and without a limit), and that
# it finds what one index of all the genomes finds: the same documents for every query, with
# the same count for every document that holds the whole query. (Partial counts include
# Bloom-filter false positives, whose rate depends on each block's row count, and so on how
# the genomes were split into shards: they can differ from one index by a few k-mers.)
#
#   workflow/test.sh            (BITSIFT=path/to/bitsift to test another binary)
#
# Snakemake comes from PyPI into a virtual environment (target/workflow-venv, or
# $BITSIFT_WORKFLOW_VENV), pinned to a version that runs on Python 3.11.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SNAKEMAKE_VERSION=9.27.1
VENV=${BITSIFT_WORKFLOW_VENV:-$ROOT/target/workflow-venv}
BITSIFT=${BITSIFT:-$ROOT/target/release/bitsift}

if [ ! -x "$BITSIFT" ]; then
    cargo build --release --locked -p bitsift
fi
if [ ! -x "$VENV/bin/snakemake" ] || [ "$("$VENV/bin/snakemake" --version)" != "$SNAKEMAKE_VERSION" ]; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check "snakemake==$SNAKEMAKE_VERSION"
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/bitsift-workflow-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
passed=0
failed=0
check() { # name, then a command that must succeed
    local name=$1
    shift
    if "$@"; then
        passed=$((passed + 1))
        echo "ok   $name"
    else
        failed=$((failed + 1))
        echo "FAIL $name"
    fi
}

# Sample sheet: every bundled genome, grouped by the genus prefix of its file name.
{
    printf 'path\tgroup\n'
    for genome in "$ROOT"/data/demo/genomes/*.fa.gz; do
        name=$(basename "$genome")
        printf '%s\t%s\n' "$genome" "${name%%_*}"
    done
} > "$WORK/samples.tsv"
cat "$ROOT"/data/demo/queries/amr_genes.fa "$ROOT"/data/demo/queries/replicons.fa > "$WORK/queries.fa"
cat > "$WORK/config.yaml" <<YAML
bitsift: $BITSIFT
samples: samples.tsv
collection: collection
work: work
max_documents_per_shard: 3
build_threads: 1
queries: queries.fa
hits: hits.tsv
threshold: 0.8
limit: 0
subindexes_per_job: 2
YAML

snakemake() {
    "$VENV/bin/snakemake" -s "$ROOT/workflow/Snakefile" --configfile "$WORK/config.yaml" \
        --profile "$ROOT/workflow/profiles/local" -d "$WORK" --quiet all "$@" > "$WORK/snakemake.log" 2>&1 \
        || { cat "$WORK/snakemake.log"; return 1; }
}

snakemake
shards=$(($(wc -l < "$WORK/work/shards/plan.tsv") - 1))
subindexes=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["subindexes"]))' "$WORK/collection/collection.json")
groups=$(ls "$WORK/work/search/groups" | wc -l)
echo "$shards shards, $subindexes sub-indexes, $groups search jobs"
check "three or more shards, one sub-index each" test "$shards" -ge 3 -a "$subindexes" -eq "$shards" -a "$groups" -ge 2

# Run where the workflow runs, so the index column names the sub-indexes the same way.
(cd "$WORK" && "$BITSIFT" query -q -i collection -f queries.fa -t 0.8 > single.tsv)
check "gathered ranking = one search of the collection" cmp "$WORK/hits.tsv" "$WORK/single.tsv"

# One index of every genome: the same documents; the same counts where a document holds the
# whole query. Both read every block (--no-summaries): the block summaries of small shards rule
# out documents that reach the threshold only through Bloom false positives, which one large
# block keeps. (The sharded collection answers as the gathered search does: checked above.)
(cd "$WORK" && "$BITSIFT" query -q -i collection -f queries.fa -t 0.8 --no-summaries > hits-exact.tsv)
"$BITSIFT" build -q -o "$WORK/all.cobs_compact" "$ROOT"/data/demo/genomes/*.fa.gz
"$BITSIFT" query -q -i "$WORK/all.cobs_compact" -f "$WORK/queries.fa" -t 0.8 --no-summaries > "$WORK/one.tsv"
awk -F'\t' 'NR > 1 { print $1 "\t" $3 }' "$WORK/hits-exact.tsv" | sort > "$WORK/hits.pairs"
awk -F'\t' 'NR > 1 { print $1 "\t" $2 }' "$WORK/one.tsv" | sort > "$WORK/one.pairs"
awk -F'\t' 'NR > 1 && $6 == "1.0000" { print $1 "\t" $3 "\t" $4 }' "$WORK/hits-exact.tsv" | sort > "$WORK/hits.full"
awk -F'\t' 'NR > 1 && $5 == "1.0000" { print $1 "\t" $2 "\t" $3 }' "$WORK/one.tsv" | sort > "$WORK/one.full"
echo "$(wc -l < "$WORK/hits.pairs") hits, $(wc -l < "$WORK/hits.full") of whole queries"
check "the documents one index of all genomes finds" cmp "$WORK/hits.pairs" "$WORK/one.pairs"
check "whole-query hits with the same counts" cmp "$WORK/hits.full" "$WORK/one.full"
check "some hits of whole queries" test -s "$WORK/hits.full"

# A limit is applied in every job and again after the merge.
snakemake --config limit=2 hits=hits-2.tsv
(cd "$WORK" && "$BITSIFT" query -q -i collection -f queries.fa -t 0.8 -l 2 > single-2.tsv)
check "with a limit: gathered = one search" cmp "$WORK/hits-2.tsv" "$WORK/single-2.tsv"

echo "workflow: $passed passed, $failed failed"
test "$failed" -eq 0
