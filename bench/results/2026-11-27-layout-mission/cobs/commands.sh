#!/usr/bin/env bash
# $REHEARSAL: the 661k rehearsal's directory (bench/mission_scale.sh --out); $BITSIFT (or $BITSIFT_BEFORE/$BITSIFT_AFTER): the release binaries compared (see BENCHMARKS.md next to this table)
# Every command bench/mission_scale.py ran, in order (2026-11-27 06:30:58 UTC).
set -e
cd .
cold() { sync; echo 3 > /proc/sys/vm/drop_caches; }
G=/sys/fs/cgroup/memory/bitsift-bench-12916-2048M
mkdir -p "$G" && echo 2147483648 > "$G/memory.limit_in_bytes"
capped() { (echo $BASHPID > "$G/tasks" && exec "$@"); }
frugal_cloud() { bench/frugal.sh cloud --memory 2147483648 --device-of cobs --quiet -- "$@"; }

# --- simulate

# --- measure the final collection (profile none)
$BITSIFT info --json --documents $REHEARSAL/cobs/wf/collection
$BITSIFT info --json --documents $REHEARSAL/cobs/wf/collection/sub-000013.cobs_compact
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0000.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0000.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0000.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/core_sp0000_q000.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/core_sp0000_q001.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/core_sp0001_q001.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/core_sp0002_q000.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/core_sp0004_q000.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/core_sp0007_q000.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/core_sp0007_q001.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/core_sp0013_q001.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/core_sp0023_q000.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/core_sp0040_q000.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/core_sp0068_q000.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/core_sp0068_q001.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/core_sp0116_q001.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/core_sp0198_q000.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/core_sp0336_q000.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/core_sp0571_q000.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/core_sp0571_q001.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/core_sp0971_q001.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/core_sp1648_q000.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/core_sp2799_q000.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sp0000_acc_00002.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sp0000_acc_00016.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sp0001_acc_00016.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sp0002_acc_00016.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sp0004_acc_00012.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sp0007_acc_00001.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sp0007_acc_00006.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sp0013_acc_00001.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sp0023_acc_00015.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sp0040_acc_00004.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sp0068_acc_00010.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sp0068_acc_00013.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sp0116_acc_00013.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sp0198_acc_00008.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sp0336_acc_00017.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sp0571_acc_00016.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sp0571_acc_00014.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sp0971_acc_00011.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sp1648_acc_00009.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sp2799_acc_00000.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/mcr-1.1_1_KP347127.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/blaKPC-2_1_AY034847.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/blaCTX-M-14_1_AF252622.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/blaTEM-1B_1_AY458016.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/blaSHV-11_1_X98101.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/blaOXA-9_1_KQ089875.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sul2_2_AY034138.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sul3_2_AJ459418.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/tet_G__2_AF133140.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/aac_6__-Ib_1_M21682.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/aph_6_-Id_1_M28829.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/rmtB_1_AB103506.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/dfrA14_1_KF921535.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/catA1_1_V00622.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/OqxA_1_EU370913.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/mecA_1_NC_002745.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/erm_A__1_X03216.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/bleO_1_AF051917.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/blaOXA-48_1_AY236073.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/blaCTX-M-15_1_AY044436.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0000.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0001.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0003.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0004.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0006.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0008.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0009.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0011.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0012.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0014.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0016.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0017.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0019.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0020.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0022.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0024.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0025.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0027.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0028.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0030.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/universal_00.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/universal_01.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/universal_02.fa -t 0.8 --format json --batch 1

# --- 1,000-gene batch (profile none)
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/batch.fa -t 0.8 --format json -o $REHEARSAL/cobs/logs/batch-hits.json

# --- server (profile none)
cold; capped $BITSIFT serve -i $REHEARSAL/cobs/wf/collection --listen 127.0.0.1:55989 --workers 2 &  # then bench/loadtest.py's client() threads, phases CLIENTS:SECONDS 1:30,8:30,32:30, the per-class genes, threshold 0.8, limit 20

# --- COBS on the largest shard (profile none)
.venv/bin/python tests/peer/cobs_peer.py build --kind compact -o $REHEARSAL/cobs/cobs/shard-0004.cobs_compact $REHEARSAL/cobs/cobs/input-shard-0004
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/core_sp0000_q000.fa | tr -d '\n')" | capped .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; capped $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/core_sp0000_q000.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/core_sp0000_q000.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/core_sp0000_q001.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/core_sp0000_q001.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/core_sp0000_q001.fa | tr -d '\n')" | capped .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/core_sp0001_q001.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/core_sp0001_q001.fa | tr -d '\n')" | capped .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; capped $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/core_sp0001_q001.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/core_sp0002_q000.fa | tr -d '\n')" | capped .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; capped $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/core_sp0002_q000.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/core_sp0002_q000.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/core_sp0004_q000.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/core_sp0004_q000.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/core_sp0004_q000.fa | tr -d '\n')" | capped .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/sp0000_acc_00002.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/sp0000_acc_00002.fa | tr -d '\n')" | capped .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; capped $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/sp0000_acc_00002.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/sp0000_acc_00016.fa | tr -d '\n')" | capped .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; capped $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/sp0000_acc_00016.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/sp0000_acc_00016.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/sp0001_acc_00016.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/sp0001_acc_00016.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/sp0001_acc_00016.fa | tr -d '\n')" | capped .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/sp0002_acc_00016.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/sp0002_acc_00016.fa | tr -d '\n')" | capped .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; capped $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/sp0002_acc_00016.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/sp0004_acc_00012.fa | tr -d '\n')" | capped .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; capped $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/sp0004_acc_00012.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/sp0004_acc_00012.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/mcr-1.1_1_KP347127.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/mcr-1.1_1_KP347127.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/mcr-1.1_1_KP347127.fa | tr -d '\n')" | capped .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/blaKPC-2_1_AY034847.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/blaKPC-2_1_AY034847.fa | tr -d '\n')" | capped .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; capped $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/blaKPC-2_1_AY034847.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/blaCTX-M-14_1_AF252622.fa | tr -d '\n')" | capped .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; capped $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/blaCTX-M-14_1_AF252622.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/blaCTX-M-14_1_AF252622.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/blaTEM-1B_1_AY458016.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/blaTEM-1B_1_AY458016.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/blaTEM-1B_1_AY458016.fa | tr -d '\n')" | capped .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/blaSHV-11_1_X98101.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/blaSHV-11_1_X98101.fa | tr -d '\n')" | capped .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; capped $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/blaSHV-11_1_X98101.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/absent_q0000.fa | tr -d '\n')" | capped .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; capped $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/absent_q0000.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/absent_q0000.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/absent_q0001.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/absent_q0001.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/absent_q0001.fa | tr -d '\n')" | capped .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/absent_q0003.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/absent_q0003.fa | tr -d '\n')" | capped .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; capped $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/absent_q0003.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/absent_q0004.fa | tr -d '\n')" | capped .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; capped $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/absent_q0004.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/absent_q0004.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/absent_q0006.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/absent_q0006.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/absent_q0006.fa | tr -d '\n')" | capped .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/universal_00.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/universal_00.fa | tr -d '\n')" | capped .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; capped $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/universal_00.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/universal_01.fa | tr -d '\n')" | capped .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; capped $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/universal_01.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/universal_01.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/universal_02.fa -t 0.8 --format json --batch 1
cold; capped $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/universal_02.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/universal_02.fa | tr -d '\n')" | capped .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact

# --- measure the final collection (profile cloud)
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0000.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0000.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0000.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/core_sp0000_q000.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/core_sp0000_q001.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/core_sp0001_q001.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/core_sp0002_q000.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/core_sp0004_q000.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/core_sp0007_q000.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/core_sp0007_q001.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/core_sp0013_q001.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/core_sp0023_q000.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/core_sp0040_q000.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/core_sp0068_q000.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/core_sp0068_q001.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/core_sp0116_q001.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/core_sp0198_q000.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/core_sp0336_q000.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/core_sp0571_q000.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/core_sp0571_q001.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/core_sp0971_q001.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/core_sp1648_q000.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/core_sp2799_q000.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sp0000_acc_00002.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sp0000_acc_00016.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sp0001_acc_00016.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sp0002_acc_00016.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sp0004_acc_00012.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sp0007_acc_00001.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sp0007_acc_00006.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sp0013_acc_00001.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sp0023_acc_00015.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sp0040_acc_00004.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sp0068_acc_00010.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sp0068_acc_00013.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sp0116_acc_00013.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sp0198_acc_00008.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sp0336_acc_00017.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sp0571_acc_00016.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sp0571_acc_00014.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sp0971_acc_00011.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sp1648_acc_00009.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sp2799_acc_00000.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/mcr-1.1_1_KP347127.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/blaKPC-2_1_AY034847.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/blaCTX-M-14_1_AF252622.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/blaTEM-1B_1_AY458016.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/blaSHV-11_1_X98101.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/blaOXA-9_1_KQ089875.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sul2_2_AY034138.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/sul3_2_AJ459418.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/tet_G__2_AF133140.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/aac_6__-Ib_1_M21682.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/aph_6_-Id_1_M28829.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/rmtB_1_AB103506.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/dfrA14_1_KF921535.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/catA1_1_V00622.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/OqxA_1_EU370913.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/mecA_1_NC_002745.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/erm_A__1_X03216.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/bleO_1_AF051917.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/blaOXA-48_1_AY236073.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/blaCTX-M-15_1_AY044436.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0000.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0001.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0003.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0004.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0006.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0008.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0009.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0011.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0012.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0014.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0016.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0017.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0019.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0020.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0022.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0024.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0025.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0027.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0028.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/absent_q0030.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/universal_00.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/universal_01.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/one/universal_02.fa -t 0.8 --format json --batch 1

# --- 1,000-gene batch (profile cloud)
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/collection -f $REHEARSAL/cobs/genes/batch.fa -t 0.8 --format json -o $REHEARSAL/cobs/logs/batch-hits.json

# --- server (profile cloud)
cold; frugal_cloud $BITSIFT serve -i $REHEARSAL/cobs/wf/collection --listen 127.0.0.1:34251 --workers 2 &  # then bench/loadtest.py's client() threads, phases CLIENTS:SECONDS 1:30,8:30,32:30, the per-class genes, threshold 0.8, limit 20

# --- COBS on the largest shard (profile cloud)
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/core_sp0000_q000.fa | tr -d '\n')" | frugal_cloud .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/core_sp0000_q000.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/core_sp0000_q000.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/core_sp0000_q001.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/core_sp0000_q001.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/core_sp0000_q001.fa | tr -d '\n')" | frugal_cloud .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/core_sp0001_q001.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/core_sp0001_q001.fa | tr -d '\n')" | frugal_cloud .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/core_sp0001_q001.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/core_sp0002_q000.fa | tr -d '\n')" | frugal_cloud .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/core_sp0002_q000.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/core_sp0002_q000.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/core_sp0004_q000.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/core_sp0004_q000.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/core_sp0004_q000.fa | tr -d '\n')" | frugal_cloud .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/sp0000_acc_00002.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/sp0000_acc_00002.fa | tr -d '\n')" | frugal_cloud .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/sp0000_acc_00002.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/sp0000_acc_00016.fa | tr -d '\n')" | frugal_cloud .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/sp0000_acc_00016.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/sp0000_acc_00016.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/sp0001_acc_00016.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/sp0001_acc_00016.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/sp0001_acc_00016.fa | tr -d '\n')" | frugal_cloud .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/sp0002_acc_00016.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/sp0002_acc_00016.fa | tr -d '\n')" | frugal_cloud .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/sp0002_acc_00016.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/sp0004_acc_00012.fa | tr -d '\n')" | frugal_cloud .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/sp0004_acc_00012.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/sp0004_acc_00012.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/mcr-1.1_1_KP347127.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/mcr-1.1_1_KP347127.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/mcr-1.1_1_KP347127.fa | tr -d '\n')" | frugal_cloud .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/blaKPC-2_1_AY034847.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/blaKPC-2_1_AY034847.fa | tr -d '\n')" | frugal_cloud .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/blaKPC-2_1_AY034847.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/blaCTX-M-14_1_AF252622.fa | tr -d '\n')" | frugal_cloud .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/blaCTX-M-14_1_AF252622.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/blaCTX-M-14_1_AF252622.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/blaTEM-1B_1_AY458016.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/blaTEM-1B_1_AY458016.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/blaTEM-1B_1_AY458016.fa | tr -d '\n')" | frugal_cloud .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/blaSHV-11_1_X98101.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/blaSHV-11_1_X98101.fa | tr -d '\n')" | frugal_cloud .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/blaSHV-11_1_X98101.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/absent_q0000.fa | tr -d '\n')" | frugal_cloud .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/absent_q0000.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/absent_q0000.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/absent_q0001.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/absent_q0001.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/absent_q0001.fa | tr -d '\n')" | frugal_cloud .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/absent_q0003.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/absent_q0003.fa | tr -d '\n')" | frugal_cloud .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/absent_q0003.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/absent_q0004.fa | tr -d '\n')" | frugal_cloud .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/absent_q0004.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/absent_q0004.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/absent_q0006.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/absent_q0006.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/absent_q0006.fa | tr -d '\n')" | frugal_cloud .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/universal_00.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/universal_00.fa | tr -d '\n')" | frugal_cloud .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/universal_00.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/universal_01.fa | tr -d '\n')" | frugal_cloud .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/universal_01.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/universal_01.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/cobs/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/universal_02.fa -t 0.8 --format json --batch 1
cold; frugal_cloud $BITSIFT query -i $REHEARSAL/cobs/wf/work/indexes/shard-0004.cobs_compact -f $REHEARSAL/cobs/genes/one/universal_02.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' $REHEARSAL/cobs/genes/one/universal_02.fa | tr -d '\n')" | frugal_cloud .venv/bin/python bench/cobs_worker.py $REHEARSAL/cobs/cobs/shard-0004.cobs_compact
