#!/usr/bin/env bash
# The workflow end to end on the bundled genomes: a sharded build (3+ shards) assembled into a
# collection, then a search split over jobs and gathered. Checks that the gathered ranking is
# byte for byte what `bitsift query -i COLLECTION` prints (with and without a limit), and that
# it finds what one index of all the genomes finds: the same documents for every query, with
# the same count for every document that holds the whole query. (Partial counts include
# Bloom-filter false positives, whose rate depends on each block's row count, and so on how
# the genomes were split into shards: they can differ from one index by a few k-mers.)
#
# The planner's unit tests run first (workflow/scripts/test_plan.py). Then the same genomes as
# bitsift-simulate lays them out (genome_NNNNN.fa.gz, metadata.tsv),
# sheet from scripts/sheet_from_metadata.py, built with order group:species and a metadata table;
# and once more without block summaries, with a fixed page size and the sheet's group column as
# the order. Checksums beside every index, the planner's refusals.
#
#   workflow/test.sh            (BITSIFT=path/to/bitsift to test another binary; KEEP_WORK=1 to
#                                keep the scratch directory)
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

# The shard planner's unit tests (whole blocks, pooling of small groups): no Snakemake needed.
python3 "$ROOT/workflow/scripts/test_plan.py" 2>&1 | tail -1 | grep -qx OK \
    || { python3 "$ROOT/workflow/scripts/test_plan.py"; exit 1; }
echo "ok   planner unit tests (workflow/scripts/test_plan.py)"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/bitsift-workflow-XXXXXX")
[ -n "${KEEP_WORK:-}" ] || trap 'rm -rf "$WORK"' EXIT
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

snakemake() { # runs the workflow with $CONFIG (default config.yaml) in $WORK
    "$VENV/bin/snakemake" -s "$ROOT/workflow/Snakefile" --configfile "$WORK/${CONFIG:-config.yaml}" \
        --profile "$ROOT/workflow/profiles/local" -d "$WORK" --quiet all "$@" > "$WORK/snakemake.log" 2>&1 \
        || { cat "$WORK/snakemake.log"; return 1; }
}

snakemake
shards=$(($(wc -l < "$WORK/work/shards/plan.tsv") - 1))
subindexes=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["subindexes"]))' "$WORK/collection/collection.json")
groups=$(ls "$WORK/work/search/groups" | wc -l)
echo "$shards shards, $subindexes sub-indexes, $groups search jobs"
check "three or more shards, one sub-index each" test "$shards" -ge 3 -a "$subindexes" -eq "$shards" -a "$groups" -ge 2
# Issue 21: the 7 genera (5 of one genome) are pooled: 4 shards of 3, not 8 of which 5 hold one.
check "small groups pooled: 4 shards of 3 genomes" \
    test "$(awk -F'\t' 'NR > 1 { print $2 }' "$WORK/work/shards/plan.tsv" | tr '\n' ' ')" = "3 3 3 3 "

# Run where the workflow runs, so the collection is named the same way.
(cd "$WORK" && "$BITSIFT" query -q -i collection -f queries.fa -t 0.8 > single.tsv)
check "gathered ranking = one search of the collection" cmp "$WORK/hits.tsv" "$WORK/single.tsv"

# One index of every genome: the same documents; the same counts where a document holds the
# whole query. Both read every block (--no-summaries): the block summaries of small shards rule
# out documents that reach the threshold only through Bloom false positives, which one large
# block keeps. (The sharded collection answers as the gathered search does: checked above.)
(cd "$WORK" && "$BITSIFT" query -q -i collection -f queries.fa -t 0.8 --no-summaries > hits-exact.tsv)
"$BITSIFT" build -q -o "$WORK/all.cobs_compact" "$ROOT"/data/demo/genomes/*.fa.gz
"$BITSIFT" query -q -i "$WORK/all.cobs_compact" -f "$WORK/queries.fa" -t 0.8 --no-summaries > "$WORK/one.tsv"
awk -F'\t' 'NR > 1 { print $1 "\t" $2 }' "$WORK/hits-exact.tsv" | sort > "$WORK/hits.pairs"
awk -F'\t' 'NR > 1 { print $1 "\t" $2 }' "$WORK/one.tsv" | sort > "$WORK/one.pairs"
awk -F'\t' 'NR > 1 && $5 == "1.0000" { print $1 "\t" $2 "\t" $3 }' "$WORK/hits-exact.tsv" | sort > "$WORK/hits.full"
awk -F'\t' 'NR > 1 && $5 == "1.0000" { print $1 "\t" $2 "\t" $3 }' "$WORK/one.tsv" | sort > "$WORK/one.full"
echo "$(wc -l < "$WORK/hits.pairs") hits, $(wc -l < "$WORK/hits.full") of whole queries"
check "the documents one index of all genomes finds" cmp "$WORK/hits.pairs" "$WORK/one.pairs"
check "whole-query hits with the same counts" cmp "$WORK/hits.full" "$WORK/one.full"
check "some hits of whole queries" test -s "$WORK/hits.full"

# A limit is applied in every job and again after the merge.
snakemake --config limit=2 hits=hits-2.tsv
(cd "$WORK" && "$BITSIFT" query -q -i collection -f queries.fa -t 0.8 -l 2 > single-2.tsv)
check "with a limit: gathered = one search" cmp "$WORK/hits-2.tsv" "$WORK/single-2.tsv"

# One shard as the target of its own (to rebuild it alone): planned through the checkpoint.
one_shard() {
    "$VENV/bin/snakemake" -s "$ROOT/workflow/Snakefile" --configfile "$WORK/config.yaml" -d "$WORK" \
        --cores 1 -n --forcerun build_shard -- work/indexes/shard-0002.cobs_compact > "$WORK/one-shard.log" 2>&1 \
        && grep -q '^build_shard  *1$' "$WORK/one-shard.log" || { cat "$WORK/one-shard.log"; return 1; }
}
check "one shard as the target (dry run)" one_shard

# Checksums (always) and block summaries (by default) beside every shard index, brought into
# the collection by the assembly; `bitsift verify` reads every page against its checksum.
sidecars() { # DIR SUFFIX: every index of DIR has its INDEX.SUFFIX
    local index
    for index in "$1"/*.cobs_compact; do
        [ -s "$index.$2" ] || { echo "no $index.$2"; return 1; }
    done
}
check "checksums beside every shard index" sidecars "$WORK/work/indexes" bitsift-checksums
check "checksums beside every sub-index of the collection" sidecars "$WORK/collection" bitsift-checksums
check "block summaries beside every shard index" sidecars "$WORK/work/indexes" bitsift-summaries
verifies() { "$BITSIFT" verify -q "$1" > /dev/null; }
check "the collection verifies against its checksums" verifies "$WORK/collection"

# --- A collection as bitsift-simulate writes it: genome_NNNNN.fa.gz and metadata.tsv -----------
# (document species clade). The bundled genomes stand in for simulated ones; the sample sheet
# comes from scripts/sheet_from_metadata.py, and the shards are built with --order group:species
# from a metadata table that also lists documents of no shard (the planner gives each shard its
# own rows), with 8 summary bits per k-mer.
mkdir "$WORK/sim"
printf 'document\tspecies\tclade\n' > "$WORK/sim/metadata.tsv"
number=0
for genome in "$ROOT"/data/demo/genomes/*.fa.gz; do
    name=$(basename "$genome" .fa.gz)
    document=$(printf 'genome_%05d' "$number")
    ln -s "$genome" "$WORK/sim/$document.fa.gz"
    printf '%s\t%s\t%s_c%d\n' "$document" "${name%%_*}" "${name%%_*}" $((number % 2)) >> "$WORK/sim/metadata.tsv"
    printf '%s\t%s\n' "$document" "$name" >> "$WORK/sim-names.tsv"
    number=$((number + 1))
done
{ cat "$WORK/sim/metadata.tsv"; printf 'genome_99999\tElsewhere\tElsewhere_c0\n'; } > "$WORK/metadata-all.tsv"
python3 "$ROOT/workflow/scripts/sheet_from_metadata.py" "$WORK/sim" -o "$WORK/sim-samples.tsv" 2> "$WORK/sheet.log"
check "sample sheet from the simulator's metadata: path, group, size" \
    test "$(head -1 "$WORK/sim-samples.tsv")" = "$(printf 'path\tgroup\tsize\tspecies\tclade')" \
    -a "$(wc -l < "$WORK/sim-samples.tsv")" -eq $((number + 1))
cat > "$WORK/grouped.yaml" <<YAML
bitsift: $BITSIFT
samples: sim-samples.tsv
collection: grouped/collection
work: grouped/work
max_documents_per_shard: 6
build_threads: 1
order: group:species
metadata: metadata-all.tsv
summary_bits_per_kmer: 8
queries: queries.fa
hits: grouped/hits.tsv
threshold: 0.8
subindexes_per_job: 1
YAML
CONFIG=grouped.yaml snakemake
shard_rows=$(cat "$WORK"/grouped/work/shards/shard-*.metadata.tsv | grep -vc '^document')
check "each shard's metadata lists its own documents, every document once" \
    test "$shard_rows" -eq "$number" -a "$(ls "$WORK"/grouped/work/shards/shard-*.list | wc -l)" -eq 2
(cd "$WORK" && "$BITSIFT" query -q -i grouped/collection -f queries.fa -t 0.8 > grouped/single.tsv)
check "group order: gathered ranking = one search of the collection" cmp "$WORK/grouped/hits.tsv" "$WORK/grouped/single.tsv"
# In index order, a species' documents are consecutive in every sub-index (the names, in
# header order, as `info --documents` lists them: the manifest keeps none).
"$BITSIFT" info --json --documents "$WORK/grouped/collection" > "$WORK/grouped/info.json"
python3 - "$WORK/grouped/info.json" "$WORK/sim/metadata.tsv" > "$WORK/grouped/runs.txt" <<'PY'
import json, sys
species = dict(line.split("\t")[:2] for line in open(sys.argv[2]).read().splitlines()[1:])
names = {}
for file, name in json.load(open(sys.argv[1]))["document_names"]:
    names.setdefault(file, []).append(name)
for documents in names.values():
    runs = [species[d] for i, d in enumerate(documents)
            if i == 0 or species[d] != species[documents[i - 1]]]
    print("split" if len(runs) != len(set(runs)) else "grouped", runs)
PY
check "group order: each species' documents share consecutive columns" \
    test -z "$(grep -v '^grouped' "$WORK/grouped/runs.txt")"
check "checksums and summaries beside every shard index (group order)" \
    sidecars "$WORK/grouped/work/indexes" bitsift-summaries
(cd "$WORK" && "$BITSIFT" query -q -i grouped/collection -f queries.fa -t 0.8 --no-summaries > grouped/hits-exact.tsv)
awk -F'\t' 'NR == FNR { name[$1] = $2; next } FNR > 1 && $5 == "1.0000" { print $1 "\t" name[$2] "\t" $3 }' \
    "$WORK/sim-names.tsv" "$WORK/grouped/hits-exact.tsv" | sort > "$WORK/grouped/hits.full"
check "group order: whole-query hits with the same counts as one index" cmp "$WORK/grouped/hits.full" "$WORK/one.full"

# --- No block summaries, a fixed page size, and a group column of the sample sheet ------------
# (order group:group without a metadata table), power-of-two rows, files stat'ed by the planner
# (no size column).
cat > "$WORK/plain.yaml" <<YAML
bitsift: $BITSIFT
samples: samples.tsv
collection: plain/collection
work: plain/work
max_documents_per_shard: 4
build_threads: 1
order: group:group
page_size: 16
rows: power-of-two
summaries: false
queries: queries.fa
hits: plain/hits.tsv
threshold: 0.8
subindexes_per_job: 2
YAML
CONFIG=plain.yaml snakemake
no_summaries() { [ -z "$(find "$@" -name '*.bitsift-summaries')" ]; }
check "summaries: false writes no block summaries" no_summaries "$WORK/plain/work/indexes" "$WORK/plain/collection"
check "checksums beside every shard index (no summaries)" sidecars "$WORK/plain/work/indexes" bitsift-checksums
page_sizes() { # DIR BYTES: every index of DIR has pages of BYTES
    local index
    for index in "$1"/*.cobs_compact; do
        "$BITSIFT" info "$index" > "$WORK/info.txt" # (not into grep -q: info fails on a closed pipe)
        grep -q "^page size *$2 bytes per row" "$WORK/info.txt" || { echo "$index: not $2-byte pages"; return 1; }
    done
}
check "page_size reaches every shard" page_sizes "$WORK/plain/work/indexes" 16
power_of_two_rows() { # DIR: every index of DIR has a power-of-two row count
    local index rows
    for index in "$1"/*.cobs_compact; do
        "$BITSIFT" info "$index" > "$WORK/info.txt"
        rows=$(awk '$1 == "rows" { print $2 }' "$WORK/info.txt")
        [ -n "$rows" ] && [ $((rows & (rows - 1))) -eq 0 ] || { echo "$index: $rows rows"; return 1; }
    done
}
check "rows: power-of-two reaches every shard" power_of_two_rows "$WORK/plain/work/indexes"
(cd "$WORK" && "$BITSIFT" query -q -i plain/collection -f queries.fa -t 0.8 --no-summaries > plain/single.tsv)
check "no summaries: gathered ranking = one exact search of the collection" cmp "$WORK/plain/hits.tsv" "$WORK/plain/single.tsv"
awk -F'\t' 'NR > 1 && $5 == "1.0000" { print $1 "\t" $2 "\t" $3 }' "$WORK/plain/hits.tsv" | sort > "$WORK/plain/hits.full"
check "no summaries: whole-query hits with the same counts as one index" cmp "$WORK/plain/hits.full" "$WORK/one.full"

# --- The planner refuses, before any build, what a shard's build would refuse later ------------
plan_refuses() { # MESSAGE, then plan.py arguments: fails, saying MESSAGE
    local message=$1
    shift
    ! python3 "$ROOT/workflow/scripts/plan.py" shards "$@" > "$WORK/plan.out" 2>&1 \
        && grep -q "$message" "$WORK/plan.out" || { cat "$WORK/plan.out"; return 1; }
}
head -5 "$WORK/sim/metadata.tsv" > "$WORK/metadata-short.tsv"
check "plan: a document without a metadata row" plan_refuses "have no row" \
    "$WORK/sim-samples.tsv" "$WORK/refused" 6 --order group:species --metadata "$WORK/metadata-short.tsv"
{ cat "$WORK/samples.tsv"; tail -1 "$WORK/samples.tsv"; } > "$WORK/samples-twice.tsv"
check "plan: a document listed twice" plan_refuses "are both document" "$WORK/samples-twice.tsv" "$WORK/refused" 6
check "plan: an order column the sheet does not have" plan_refuses "needs a metadata table" \
    "$WORK/samples.tsv" "$WORK/refused" 6 --order group:country

echo "workflow: $passed passed, $failed failed"
test "$failed" -eq 0
