#!/usr/bin/env bash
# The workflow on a real SLURM cluster of one node: this machine. Needs root (it installs
# Debian's SLURM 22.05, MUNGE and MariaDB with apt-get and runs their daemons).
#
# Sets up a private cluster in a scratch directory (slurm.conf, slurmdbd.conf, a MUNGE key, a
# MariaDB data directory, free ports), starts mariadbd, munged, slurmdbd, slurmctld and slurmd
# as children of this script (never as system services), registers the cluster, an account
# and root in sacctmgr, then runs the workflow through snakemake-executor-plugin-slurm with
# workflow/profiles/slurm (versions pinned in workflow/profiles/slurm/requirements.txt): a
# sharded build and a split search of the bundled genomes, every build_shard and
# search_group a SLURM job with its own memory and time limit. One shard's job is killed with
# scancel while it runs; the profile's retries must build it again. Checks:
#   - sacct has a job for every shard and search group, named after its rule (the plugin
#     puts `rule_RULE_wildcards_...` in the job's comment), with the rule's memory and time
#     requests, and the killed shard's job CANCELLED then COMPLETED;
#   - the gathered ranking is byte for byte one `bitsift query -i COLLECTION`;
#   - the collection lists one sub-index per shard, every genome once, and `bitsift verify`
#     passes (no partial shard registered);
# then prints the sacct table of the jobs, stops every daemon (also on failure: trap) and
# checks with pgrep that none is left.
#
#   workflow/test-slurm.sh      (BITSIFT=path/to/bitsift tests that binary; KEEP_WORK=1 keeps
#                                the scratch directory; BITSIFT_SLURM_VENV=DIR puts Snakemake
#                                and the plugin elsewhere than target/slurm-venv)
#
# Exits 77 without testing anything when it cannot run here (not root, no apt-get, or apt-get
# cannot install the packages); scripts/test.sh reports that as skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SKIP=77
REQUIREMENTS=$ROOT/workflow/profiles/slurm/requirements.txt
VENV=${BITSIFT_SLURM_VENV:-$ROOT/target/slurm-venv}
BITSIFT=${BITSIFT:-$ROOT/target/release/bitsift}
PACKAGES=(slurmctld slurmd slurmdbd slurm-client munge mariadb-server)
CLUSTER=bitsift-test
ACCOUNT=bitsift
PARTITION=test

say() { printf 'slurm: %s\n' "$*"; }
skip() { say "skipped: $*"; exit "$SKIP"; }

# --- What it needs ---------------------------------------------------------------------------
[ "$(id -u)" -eq 0 ] || skip "needs root (installs SLURM, MUNGE and MariaDB, and runs their daemons)"
command -v apt-get > /dev/null 2>&1 || skip "needs apt-get (Debian or Ubuntu) to install ${PACKAGES[*]}"
missing=()
for package in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2> /dev/null | grep -q 'install ok installed' || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    say "installing ${missing[*]} (apt-get)"
    # Packages must not start their services: this test runs its own daemons, on its own ports.
    # policy-rc.d answering 101 tells invoke-rc.d not to (Debian's mechanism for this).
    policy=/usr/sbin/policy-rc.d
    placed_policy=
    if [ ! -e "$policy" ]; then
        printf '#!/bin/sh\nexit 101\n' > "$policy" && chmod 755 "$policy" && placed_policy=1
    fi
    installed=1
    APT_LOG=${TMPDIR:-/tmp}/bitsift-slurm-apt.log
    { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"; } \
        > "$APT_LOG" 2>&1 || installed=
    [ -z "$placed_policy" ] || rm -f "$policy"
    if [ -z "$installed" ]; then
        tail -20 "$APT_LOG"
        skip "apt-get could not install ${missing[*]} (log above, and in $APT_LOG)"
    fi
    rm -f "$APT_LOG"
fi
say "$(slurmctld -V), $(munged -V 2>&1 | head -1), $(mariadbd --version | sed 's/^.*Ver /MariaDB /; s/ for .*//')"

if [ ! -x "$BITSIFT" ]; then
    cargo build --release --locked -p bitsift
fi
# The environment is reused while it was made from the same requirements.
if [ ! -x "$VENV/bin/snakemake" ] || ! cmp -s "$REQUIREMENTS" "$VENV/bitsift-requirements.txt"; then
    say "installing $(grep -v '^#' "$REQUIREMENTS" | grep . | tr '\n' ' ')into ${VENV#"$ROOT"/}"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$REQUIREMENTS"
    cp "$REQUIREMENTS" "$VENV/bitsift-requirements.txt"
fi

# --- The cluster -----------------------------------------------------------------------------
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bitsift-slurm-XXXXXX")
chmod 755 "$WORK"
DAEMONS=()   # "name pid", in start order
SNAKEMAKE_PID=
stepds_before=$(pgrep -x slurmstepd | sort || true)

stop_pid() { # NAME PID: TERM, then KILL after 20 s
    local name=$1 pid=$2 tries=0
    kill -0 "$pid" 2> /dev/null || return 0
    kill "$pid" 2> /dev/null || true
    while kill -0 "$pid" 2> /dev/null && [ $tries -lt 100 ]; do
        sleep 0.2
        tries=$((tries + 1))
    done
    if kill -0 "$pid" 2> /dev/null; then
        say "$name ($pid) did not stop in 20 s: killing it"
        kill -9 "$pid" 2> /dev/null || true
    fi
    wait "$pid" 2> /dev/null || true
}

cleanup() {
    local status=$? index left
    trap - EXIT INT TERM
    set +e
    if [ -n "$SNAKEMAKE_PID" ]; then
        stop_pid snakemake "$SNAKEMAKE_PID"
    fi
    if [ -n "$(daemon_pid slurmctld)" ]; then
        # Jobs first, so that no slurmstepd outlives slurmd.
        scancel --full --quiet -u root 2> /dev/null
        for _ in $(seq 50); do
            [ -z "$(squeue -h -o %i 2> /dev/null)" ] && break
            sleep 0.2
        done
    fi
    for ((index = ${#DAEMONS[@]} - 1; index >= 0; index--)); do
        stop_pid ${DAEMONS[$index]}
    done
    for _ in $(seq 50); do
        left=$(pgrep -x slurmstepd | sort | comm -13 <(echo "$stepds_before") - ; pgrep -f "$WORK")
        [ -z "$left" ] && break
        sleep 0.2
    done
    if [ -n "$left" ]; then
        say "FAIL processes left running: $(echo $left)"
        ps -o pid,args -p "$(echo $left | tr ' ' ,)" || true
        status=1
    else
        say "every daemon stopped, nothing left running"
    fi
    if [ -n "${KEEP_WORK:-}" ]; then
        say "kept $WORK"
    else
        rm -rf "$WORK"
    fi
    exit $status
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

daemon_pid() { # NAME: its pid, if this script started it
    local entry
    for entry in "${DAEMONS[@]}"; do
        [ "${entry%% *}" = "$1" ] && { echo "${entry#* }"; return; }
    done
    true
}
start() { # NAME COMMAND...: runs a daemon in the foreground, as a child of this script
    local name=$1
    shift
    "$@" > "$WORK/log/$name.out" 2>&1 &
    DAEMONS+=("$name $!")
}
wait_for() { # WHAT SECONDS COMMAND...: until COMMAND succeeds; fails with the daemons' logs
    local what=$1 seconds=$2 tries=0
    shift 2
    until "$@" > /dev/null 2>&1; do
        tries=$((tries + 1))
        if [ $tries -gt $((seconds * 5)) ]; then
            say "FAIL $what: not after $seconds s"
            tail -n 15 "$WORK"/log/* >&2
            return 1
        fi
        for entry in "${DAEMONS[@]}"; do
            kill -0 "${entry#* }" 2> /dev/null || { say "FAIL ${entry%% *} exited"; tail -n 30 "$WORK"/log/* >&2; return 1; }
        done
        sleep 0.2
    done
}

mkdir -p "$WORK"/{log,state,spool,db,munge,run,work}
read -r PORT_DB PORT_DBD PORT_CTLD PORT_SLURMD < <(python3 - <<'PY'
import socket
sockets = [socket.socket() for _ in range(4)]
for s in sockets:
    s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in sockets])
PY
)
NODE=$(hostname -s)
# The node as slurmd sees it (CPUs, sockets, cores, threads, RealMemory), less 5 % of the
# memory so that the node is never drained for having less than configured.
NODE_HARDWARE=$(slurmd -C | head -1 | sed 's/^NodeName=[^ ]* //')
REAL_MEMORY_MB=$(echo "$NODE_HARDWARE" | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p')
NODE_HARDWARE=$(echo "$NODE_HARDWARE" | sed "s/RealMemory=[0-9]*/RealMemory=$((REAL_MEMORY_MB * 95 / 100))/")

# MariaDB for slurmdbd: a private data directory, TCP on 127.0.0.1 only.
mariadb-install-db --no-defaults --user=root --datadir="$WORK/db" --auth-root-authentication-method=normal \
    --skip-test-db > "$WORK/log/mariadb-install.out" 2>&1 || { cat "$WORK/log/mariadb-install.out"; exit 1; }
start mariadbd mariadbd --no-defaults --user=root --datadir="$WORK/db" --socket="$WORK/run/mysql.sock" \
    --port="$PORT_DB" --bind-address=127.0.0.1 --pid-file="$WORK/run/mariadb.pid" --skip-log-bin \
    --innodb-buffer-pool-size=64M --innodb-lock-wait-timeout=900 --log-error="$WORK/log/mariadbd.log"
mysql_root() { mariadb --no-defaults -S "$WORK/run/mysql.sock" -uroot "$@"; }
wait_for "mariadbd answers" 60 mysql_root -e 'SELECT 1'
DB_PASSWORD=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
mysql_root -e "CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY '$DB_PASSWORD';
    GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';"

# MUNGE: a private key and socket.
mungekey --create --keyfile="$WORK/munge/munge.key" > /dev/null 2>&1 \
    || dd if=/dev/urandom of="$WORK/munge/munge.key" bs=1024 count=1 status=none
chmod 711 "$WORK/munge" && chmod 400 "$WORK/munge/munge.key"
MUNGE_SOCKET=$WORK/munge/munge.socket
# --force: munged otherwise refuses to run as root.
start munged munged --foreground --force --key-file="$WORK/munge/munge.key" --socket="$MUNGE_SOCKET" \
    --pid-file="$WORK/run/munged.pid" --log-file="$WORK/log/munged.log" --seed-file="$WORK/munge/munged.seed"
wait_for "munged answers" 30 sh -c "munge -S '$MUNGE_SOCKET' -n | unmunge -S '$MUNGE_SOCKET'"

cat > "$WORK/slurmdbd.conf" <<EOF
AuthType=auth/munge
AuthInfo=socket=$MUNGE_SOCKET
DbdHost=localhost
DbdPort=$PORT_DBD
SlurmUser=root
PidFile=$WORK/run/slurmdbd.pid
LogFile=$WORK/log/slurmdbd.log
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$PORT_DB
StorageUser=slurm
StoragePass=$DB_PASSWORD
StorageLoc=slurm_acct_db
EOF
chmod 600 "$WORK/slurmdbd.conf"

cat > "$WORK/slurm.conf" <<EOF
# One node, this machine; everything in one scratch directory.
ClusterName=$CLUSTER
SlurmctldHost=$NODE(127.0.0.1)
SlurmctldPort=$PORT_CTLD
SlurmdPort=$PORT_SLURMD
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$MUNGE_SOCKET
StateSaveLocation=$WORK/state
SlurmdSpoolDir=$WORK/spool/%n
SlurmctldPidFile=$WORK/run/slurmctld.pid
SlurmdPidFile=$WORK/run/slurmd.pid
SlurmctldLogFile=$WORK/log/slurmctld.log
SlurmdLogFile=$WORK/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# No cgroups: processes tracked by parentage, no task binding.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
# Cores and memory are consumable: a job's --mem is reserved on the node.
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
# Accounting through slurmdbd, so that sacct (which the executor plugin asks for job states)
# knows every job; jobs' comments (the plugin's rule names) and max RSS kept.
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoragePort=$PORT_DBD
# For slurmdbd, the MUNGE socket to authenticate with (the default one otherwise).
AccountingStoragePass=$MUNGE_SOCKET
AccountingStorageEnforce=associations
AccountingStoreFlags=job_comment
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=task=1
JobCompType=jobcomp/none
ReturnToService=2
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=2
KillWait=5
InactiveLimit=0
MinJobAge=300
NodeName=$NODE NodeAddr=127.0.0.1 $NODE_HARDWARE State=UNKNOWN
PartitionName=$PARTITION Nodes=$NODE Default=YES MaxTime=60 State=UP
EOF
# Every SLURM command (and slurmdbd, which reads slurmdbd.conf beside it) finds it here; jobs
# inherit it (the plugin submits with --export=ALL).
export SLURM_CONF=$WORK/slurm.conf

start slurmdbd slurmdbd -D
wait_for "slurmdbd answers" 60 timeout 10 sacctmgr -n list cluster
sacctmgr -i add cluster "$CLUSTER" > /dev/null
sacctmgr -i add account "$ACCOUNT" Cluster="$CLUSTER" Description="bitsift workflow test" Organization=bitsift > /dev/null
sacctmgr -i add user root Account="$ACCOUNT" DefaultAccount="$ACCOUNT" Cluster="$CLUSTER" > /dev/null
start slurmctld slurmctld -D -i -f "$WORK/slurm.conf"
wait_for "slurmctld answers" 60 timeout 10 scontrol ping
start slurmd slurmd -D -N "$NODE" -f "$WORK/slurm.conf"
idle() { [ "$(sinfo -h -N -n "$NODE" -o %t)" = idle ]; }
wait_for "node $NODE idle" 60 idle
say "cluster $CLUSTER up: node $NODE ($(sinfo -h -N -o '%c CPUs, %m MB'))"

# --- The workflow as SLURM jobs ----------------------------------------------------------------
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

RUN=$WORK/work
{
    printf 'path\tgroup\n'
    for genome in "$ROOT"/data/demo/genomes/*.fa.gz; do
        name=$(basename "$genome")
        printf '%s\t%s\n' "$genome" "${name%%_*}"
    done
} > "$RUN/samples.tsv"
cat "$ROOT"/data/demo/queries/*.fa > "$RUN/queries.fa"

# The jobs run bitsift through the workflow's `bitsift:` path. Here it is a wrapper: the first
# build of shard-0002 writes a partial index where the shard goes, says which SLURM job it is
# in, and waits to be cancelled; every other call runs the real binary.
KILLED_SHARD=shard-0002
cat > "$WORK/bitsift" <<EOF
#!/bin/sh
case " \$* " in
*" build "*"/$KILLED_SHARD.list "*)
    if [ ! -e "$WORK/killed.job" ]; then
        while [ \$# -gt 0 ]; do
            [ "\$1" = -o ] && { printf 'partial' > "\$2"; break; }
            shift
        done
        echo "\$SLURM_JOB_ID" > "$WORK/killed.job.tmp" && mv "$WORK/killed.job.tmp" "$WORK/killed.job"
        exec sleep 600
    fi
    ;;
esac
exec "$BITSIFT" "\$@"
EOF
chmod 755 "$WORK/bitsift"

cat > "$RUN/config.yaml" <<YAML
bitsift: $WORK/bitsift
samples: samples.tsv
collection: collection
work: work
max_documents_per_shard: 3
build_threads: 1
memory_base_mb: 512
memory_per_input_byte: 100.0
memory_min_mb: 600
memory_max_mb: 4000
build_runtime_minutes: 10
queries: queries.fa
hits: hits.tsv
threshold: 0.8
limit: 0
subindexes_per_job: 2
search_mem_mb: 700
search_runtime_minutes: 5
YAML

# The plugin reads USER (to guess the account); a login shell sets it, a container may not.
export USER=${USER:-$(id -un)}
START=$(date -d '1 minute ago' +%Y-%m-%dT%H:%M:%S)
started_s=$SECONDS
# First status check 2 s after a submission (the plugin's default, 40 s, suits a busy cluster).
"$VENV/bin/snakemake" -s "$ROOT/workflow/Snakefile" --configfile "$RUN/config.yaml" \
    --profile "$ROOT/workflow/profiles/slurm" -d "$RUN" --slurm-init-seconds-before-status-checks 2 \
    --latency-wait 10 all > "$WORK/snakemake.log" 2>&1 &
SNAKEMAKE_PID=$!

# Kill the shard's job while it runs.
running() { local stat; stat=$(ps -o stat= -p "$1") && [ "${stat#Z}" = "$stat" ]; }
killed_job() { [ -s "$WORK/killed.job" ] || { running "$SNAKEMAKE_PID" && return 1; }; }
if ! wait_for "the $KILLED_SHARD job starts" 300 killed_job || [ ! -s "$WORK/killed.job" ]; then
    tail -n 40 "$WORK/snakemake.log"
    say "FAIL snakemake ended before the $KILLED_SHARD job started"
    exit 1
fi
KILLED_JOB=$(cat "$WORK/killed.job")
state=$(squeue -h -j "$KILLED_JOB" -o %T)
say "cancelling job $KILLED_JOB ($KILLED_SHARD's build, $state) with scancel"
check "the $KILLED_SHARD job was running when cancelled" test "$state" = RUNNING
scancel "$KILLED_JOB"

# Snakemake's own end, within 10 minutes (the trap stops it otherwise).
for _ in $(seq 3000); do
    running "$SNAKEMAKE_PID" || break
    sleep 0.2
done
running "$SNAKEMAKE_PID" && { tail -n 40 "$WORK/snakemake.log"; say "FAIL snakemake still running after 10 minutes"; exit 1; }
status=0
wait "$SNAKEMAKE_PID" || status=$?
SNAKEMAKE_PID=
say "snakemake ended ($status) after $((SECONDS - started_s)) s"
if [ "$status" -ne 0 ]; then
    tail -n 60 "$WORK/snakemake.log"
fi
check "the workflow completes through SLURM (with a retried shard)" test "$status" -eq 0

# --- What SLURM ran --------------------------------------------------------------------------
# One line per job: id, rule, wildcards, state, memory and time asked for, elapsed, max RSS
# (of the job's steps), from the plugin's comment `rule_RULE_wildcards_WILDCARDS`.
sacct -a -n -P -S "$START" -o JobID,Comment,State,ReqMem,Timelimit,Elapsed,MaxRSS > "$WORK/sacct.txt"
python3 - "$WORK/sacct.txt" > "$WORK/jobs.tsv" <<'PY'
import sys
jobs, rss = {}, {}
def kib(text):
    units = {"K": 1, "M": 2**10, "G": 2**20, "T": 2**30}
    return int(float(text[:-1]) * units[text[-1]]) if text and text[-1] in units else int(text or 0)
for line in open(sys.argv[1]).read().splitlines():
    job_id, comment, state, req_mem, time_limit, elapsed, max_rss = line.split("|")
    base = job_id.split(".")[0]
    if "." in job_id:
        rss[base] = max(rss.get(base, 0), kib(max_rss))
        continue
    rule, _, wildcards = comment.removeprefix("rule_").partition("_wildcards_")
    state = state.split()[0]  # "CANCELLED by 0"
    jobs[base] = [job_id, rule or "-", wildcards or "-", state, req_mem, time_limit, elapsed]
print("JobID\tRule\tWildcards\tState\tReqMem\tTimelimit\tElapsed\tMaxRSS")
for base, row in sorted(jobs.items(), key=lambda item: int(item[0])):
    print("\t".join(row + [f"{rss.get(base, 0) / 1024:.0f}M"]))
PY

# The memory each shard's job should have asked for: the Snakefile's formula on the plan.
python3 - "$RUN/work/shards/plan.tsv" > "$WORK/expected-memory.tsv" <<'PY'
import csv, sys
for row in csv.DictReader(open(sys.argv[1]), delimiter="\t"):
    mb = 512 + 100.0 * int(row["input_bytes"]) / 2**20
    print(f"{row['shard']}\t{int(min(max(mb, 600), 4000))}M")
PY
shards=$(wc -l < "$WORK/expected-memory.tsv")
groups=$(ls "$RUN/work/search/groups" | wc -l)
completed() { awk -F'\t' -v rule="$1" '$2 == rule && $4 == "COMPLETED"' "$WORK/jobs.tsv"; }
say "$shards shards, $groups search groups; $(($(wc -l < "$WORK/jobs.tsv") - 1)) SLURM jobs"
check "sacct: one completed build_shard job per shard" \
    test "$(completed build_shard | cut -f3 | sort -u | wc -l)" -eq "$shards" -a "$(completed build_shard | wc -l)" -eq "$shards" -a "$shards" -ge 3
check "sacct: one completed search_group job per group" \
    test "$(completed search_group | cut -f3 | sort -u | wc -l)" -eq "$groups" -a "$(completed search_group | wc -l)" -eq "$groups" -a "$groups" -ge 2
check "sacct: only build_shard and search_group ran as jobs (the rest is local)" \
    test -z "$(awk -F'\t' 'NR > 1 && $2 != "build_shard" && $2 != "search_group"' "$WORK/jobs.tsv")"
check "sacct: the cancelled job is $KILLED_SHARD's build, and its retry completed" \
    test "$(awk -F'\t' -v id="$KILLED_JOB" '$1 == id { print $2, $3, $4 }' "$WORK/jobs.tsv")" = "build_shard $KILLED_SHARD CANCELLED" \
    -a "$(completed build_shard | awk -F'\t' -v w="$KILLED_SHARD" '$3 == w' | wc -l)" -eq 1
check "sacct: every build_shard job asked for its shard's memory and 10 minutes" \
    cmp <(completed build_shard | awk -F'\t' '{ print $3 "\t" $5 }' | sort) <(sort "$WORK/expected-memory.tsv")
check "sacct: build_shard jobs' time limit is build_runtime_minutes" \
    test -z "$(awk -F'\t' '$2 == "build_shard" && $6 != "00:10:00"' "$WORK/jobs.tsv")"
check "sacct: search_group jobs asked for search_mem_mb and search_runtime_minutes" \
    test -z "$(awk -F'\t' '$2 == "search_group" && ($5 != "700M" || $6 != "00:05:00")' "$WORK/jobs.tsv")"

# --- What the workflow made --------------------------------------------------------------------
(cd "$RUN" && "$BITSIFT" query -q -i collection -f queries.fa -t 0.8 > single.tsv)
check "gathered ranking = one bitsift query of the collection" cmp "$RUN/hits.tsv" "$RUN/single.tsv"
check "some hits" test "$(wc -l < "$RUN/hits.tsv")" -gt 1
"$BITSIFT" info --json --documents "$RUN/collection" > "$WORK/info.json"
python3 - "$WORK/info.json" "$ROOT"/data/demo/genomes/*.fa.gz > "$WORK/manifest.txt" <<'PY'
import json, os, sys
info = json.load(open(sys.argv[1]))
subindexes = info["subindexes"]
documents = sorted(name for _, name in info["document_names"])
genomes = sorted(os.path.basename(p)[: -len(".fa.gz")] for p in sys.argv[2:])
print(len(subindexes), "sub-indexes;", "every genome once" if documents == genomes else f"documents {documents} != genomes {genomes}")
PY
check "the manifest lists one sub-index per shard, every genome once" \
    test "$(cat "$WORK/manifest.txt")" = "$shards sub-indexes; every genome once"
verifies() { "$BITSIFT" verify -q "$1" > "$WORK/verify.txt" 2>&1 || { cat "$WORK/verify.txt"; return 1; }; }
check "bitsift verify: every registered sub-index complete and checksummed" verifies "$RUN/collection"
check "the killed shard was rebuilt (a real index, not the partial one)" \
    test "$(head -c 7 "$RUN/work/indexes/$KILLED_SHARD.cobs_compact")" != partial

echo
say "SLURM jobs (sacct):"
python3 -c '
import sys
rows = [line.split("\t") for line in open(sys.argv[1]).read().splitlines()]
widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
for row in rows:
    print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
' "$WORK/jobs.tsv"
echo
say "$passed passed, $failed failed ($((SECONDS - started_s)) s for the workflow and its checks)"
test "$failed" -eq 0
