#!/usr/bin/env bash
# Every command bench/mission_scale.py ran, in order (2026-11-25 15:17:45 UTC).
set -e
cd /work/main
cold() { sync; echo 3 > /proc/sys/vm/drop_caches; }
G=/sys/fs/cgroup/memory/bitsift-bench-9855-2048M
mkdir -p "$G" && echo 2147483648 > "$G/memory.limit_in_bytes"
capped() { (echo $BASHPID > "$G/tasks" && exec "$@"); }

# --- simulate
/work/rehearsal/bin/bitsift-simulate -o /work/rehearsal/mission/sim --genomes 668020 --genome-size 20000 --species 2800 --species-skew 1.64 --clades 32 --accessory-genes 20 --gene-length 300-2000 --contigs 1-10 --plasmids 30 --plasmid-host-bias 1 --universal-genes 3 --query-species 16 --query-genes 2 --train data/demo/genomes/Kpn_MGH78578_CP000647_pKPN3-7.fa.gz --genes data/demo/queries/amr_genes.fa --seed 1 -q

# --- build (Snakemake)
/root/.pyenv/versions/3.11.7/bin/python3 /work/main/workflow/scripts/sheet_from_metadata.py /work/rehearsal/mission/sim --metadata /work/rehearsal/mission/wf/metadata-base.tsv -o /work/rehearsal/mission/wf/samples.tsv
/work/main/target/workflow-venv/bin/snakemake -s /work/main/workflow/Snakefile --configfile /work/rehearsal/mission/wf/config.yaml --profile /work/main/workflow/profiles/local -d /work/rehearsal/mission/wf build

# --- measure the built collection
/work/rehearsal/bin/bitsift info --json --documents /work/rehearsal/mission/wf/collection
/work/rehearsal/bin/bitsift info --json --documents /work/rehearsal/mission/wf/collection/sub-000001.cobs_compact
/work/rehearsal/bin/bitsift info --json --documents /work/rehearsal/mission/wf/collection/sub-000002.cobs_compact
/work/rehearsal/bin/bitsift info --json --documents /work/rehearsal/mission/wf/collection/sub-000003.cobs_compact
/work/rehearsal/bin/bitsift info --json --documents /work/rehearsal/mission/wf/collection/sub-000004.cobs_compact
/work/rehearsal/bin/bitsift info --json --documents /work/rehearsal/mission/wf/collection/sub-000005.cobs_compact
/work/rehearsal/bin/bitsift info --json --documents /work/rehearsal/mission/wf/collection/sub-000006.cobs_compact
/work/rehearsal/bin/bitsift info --json --documents /work/rehearsal/mission/wf/collection/sub-000007.cobs_compact
/work/rehearsal/bin/bitsift info --json --documents /work/rehearsal/mission/wf/collection/sub-000008.cobs_compact
/work/rehearsal/bin/bitsift info --json --documents /work/rehearsal/mission/wf/collection/sub-000009.cobs_compact
/work/rehearsal/bin/bitsift info --json --documents /work/rehearsal/mission/wf/collection/sub-000010.cobs_compact
/work/rehearsal/bin/bitsift info --json --documents /work/rehearsal/mission/wf/collection/sub-000011.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/core_sp0000_q000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/core_sp0000_q001.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/core_sp0001_q001.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/core_sp0002_q000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/core_sp0004_q000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/core_sp0007_q000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/core_sp0007_q001.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/core_sp0013_q001.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/core_sp0023_q000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/core_sp0040_q000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/core_sp0068_q000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/core_sp0068_q001.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/core_sp0116_q001.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/core_sp0198_q000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/core_sp0336_q000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/core_sp0571_q000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/core_sp0571_q001.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/core_sp0971_q001.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/core_sp1648_q000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/core_sp2799_q000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0000_acc_00002.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0000_acc_00016.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0001_acc_00016.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0002_acc_00016.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0004_acc_00012.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0007_acc_00001.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0007_acc_00006.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0013_acc_00001.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0023_acc_00015.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0040_acc_00004.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0068_acc_00010.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0068_acc_00013.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0116_acc_00013.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0198_acc_00008.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0336_acc_00017.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0571_acc_00016.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0571_acc_00014.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0971_acc_00011.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp1648_acc_00009.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp2799_acc_00000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/mcr-1.1_1_KP347127.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/blaKPC-2_1_AY034847.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/blaCTX-M-14_1_AF252622.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/blaTEM-1B_1_AY458016.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/blaSHV-11_1_X98101.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/blaOXA-9_1_KQ089875.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sul2_2_AY034138.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sul3_2_AJ459418.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/tet_G__2_AF133140.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/aac_6__-Ib_1_M21682.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/aph_6_-Id_1_M28829.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/rmtB_1_AB103506.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/dfrA14_1_KF921535.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/catA1_1_V00622.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/OqxA_1_EU370913.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/mecA_1_NC_002745.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/erm_A__1_X03216.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/bleO_1_AF051917.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/blaOXA-48_1_AY236073.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/blaCTX-M-15_1_AY044436.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0001.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0003.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0004.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0006.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0008.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0009.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0011.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0012.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0014.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0016.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0017.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0019.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0020.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0022.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0024.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0025.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0027.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0028.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0030.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/universal_00.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/universal_01.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/universal_02.fa -t 0.8 --format json --batch 1

# --- add / remove / merge
/work/rehearsal/bin/bitsift add /work/rehearsal/mission/wf/collection --list /work/rehearsal/mission/wf/held-out.list --order group:species --metadata /work/rehearsal/mission/wf/metadata-held.tsv -T 2 -p 4096
/work/rehearsal/bin/bitsift info --json --documents /work/rehearsal/mission/wf/collection
/work/rehearsal/bin/bitsift remove /work/rehearsal/mission/wf/collection --documents /work/rehearsal/mission/wf/removed.txt
/work/rehearsal/bin/bitsift merge /work/rehearsal/mission/wf/collection --json
/work/rehearsal/bin/bitsift verify /work/rehearsal/mission/wf/collection
rm -f '/work/rehearsal/mission/wf/work/indexes/shard-*.cobs_compact*'  # all but shard-0006 (--keep-shards keeps them)
/work/rehearsal/bin/bitsift info --json /work/rehearsal/mission/wf/collection

# --- measure the final collection
/work/rehearsal/bin/bitsift info --json --documents /work/rehearsal/mission/wf/collection
/work/rehearsal/bin/bitsift info --json --documents /work/rehearsal/mission/wf/collection/sub-000013.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/core_sp0000_q000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/core_sp0000_q001.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/core_sp0001_q001.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/core_sp0002_q000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/core_sp0004_q000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/core_sp0007_q000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/core_sp0007_q001.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/core_sp0013_q001.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/core_sp0023_q000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/core_sp0040_q000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/core_sp0068_q000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/core_sp0068_q001.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/core_sp0116_q001.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/core_sp0198_q000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/core_sp0336_q000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/core_sp0571_q000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/core_sp0571_q001.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/core_sp0971_q001.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/core_sp1648_q000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/core_sp2799_q000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0000_acc_00002.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0000_acc_00016.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0001_acc_00016.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0002_acc_00016.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0004_acc_00012.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0007_acc_00001.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0007_acc_00006.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0013_acc_00001.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0023_acc_00015.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0040_acc_00004.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0068_acc_00010.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0068_acc_00013.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0116_acc_00013.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0198_acc_00008.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0336_acc_00017.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0571_acc_00016.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0571_acc_00014.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0971_acc_00011.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp1648_acc_00009.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp2799_acc_00000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/mcr-1.1_1_KP347127.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/blaKPC-2_1_AY034847.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/blaCTX-M-14_1_AF252622.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/blaTEM-1B_1_AY458016.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/blaSHV-11_1_X98101.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/blaOXA-9_1_KQ089875.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sul2_2_AY034138.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sul3_2_AJ459418.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/tet_G__2_AF133140.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/aac_6__-Ib_1_M21682.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/aph_6_-Id_1_M28829.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/rmtB_1_AB103506.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/dfrA14_1_KF921535.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/catA1_1_V00622.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/OqxA_1_EU370913.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/mecA_1_NC_002745.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/erm_A__1_X03216.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/bleO_1_AF051917.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/blaOXA-48_1_AY236073.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/blaCTX-M-15_1_AY044436.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0001.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0003.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0004.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0006.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0008.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0009.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0011.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0012.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0014.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0016.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0017.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0019.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0020.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0022.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0024.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0025.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0027.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0028.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0030.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/universal_00.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/universal_01.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/universal_02.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0000_acc_00002.fa -t 0.8 --format json --batch 1 --no-summaries
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0000_acc_00016.fa -t 0.8 --format json --batch 1 --no-summaries
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0001_acc_00016.fa -t 0.8 --format json --batch 1 --no-summaries
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0002_acc_00016.fa -t 0.8 --format json --batch 1 --no-summaries
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0004_acc_00012.fa -t 0.8 --format json --batch 1 --no-summaries
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0007_acc_00001.fa -t 0.8 --format json --batch 1 --no-summaries
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0007_acc_00006.fa -t 0.8 --format json --batch 1 --no-summaries
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0013_acc_00001.fa -t 0.8 --format json --batch 1 --no-summaries
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0023_acc_00015.fa -t 0.8 --format json --batch 1 --no-summaries
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0040_acc_00004.fa -t 0.8 --format json --batch 1 --no-summaries
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0068_acc_00010.fa -t 0.8 --format json --batch 1 --no-summaries
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0068_acc_00013.fa -t 0.8 --format json --batch 1 --no-summaries
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0116_acc_00013.fa -t 0.8 --format json --batch 1 --no-summaries
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0198_acc_00008.fa -t 0.8 --format json --batch 1 --no-summaries
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0336_acc_00017.fa -t 0.8 --format json --batch 1 --no-summaries
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0571_acc_00016.fa -t 0.8 --format json --batch 1 --no-summaries
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0571_acc_00014.fa -t 0.8 --format json --batch 1 --no-summaries
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp0971_acc_00011.fa -t 0.8 --format json --batch 1 --no-summaries
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp1648_acc_00009.fa -t 0.8 --format json --batch 1 --no-summaries
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/sp2799_acc_00000.fa -t 0.8 --format json --batch 1 --no-summaries
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0000.fa -t 0.8 --format json --batch 1 --no-summaries
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0001.fa -t 0.8 --format json --batch 1 --no-summaries
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0003.fa -t 0.8 --format json --batch 1 --no-summaries
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0004.fa -t 0.8 --format json --batch 1 --no-summaries
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0006.fa -t 0.8 --format json --batch 1 --no-summaries
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0008.fa -t 0.8 --format json --batch 1 --no-summaries
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0009.fa -t 0.8 --format json --batch 1 --no-summaries
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0011.fa -t 0.8 --format json --batch 1 --no-summaries
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0012.fa -t 0.8 --format json --batch 1 --no-summaries
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0014.fa -t 0.8 --format json --batch 1 --no-summaries
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0016.fa -t 0.8 --format json --batch 1 --no-summaries
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0017.fa -t 0.8 --format json --batch 1 --no-summaries
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0019.fa -t 0.8 --format json --batch 1 --no-summaries
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0020.fa -t 0.8 --format json --batch 1 --no-summaries
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0022.fa -t 0.8 --format json --batch 1 --no-summaries
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0024.fa -t 0.8 --format json --batch 1 --no-summaries
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0025.fa -t 0.8 --format json --batch 1 --no-summaries
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0027.fa -t 0.8 --format json --batch 1 --no-summaries
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0028.fa -t 0.8 --format json --batch 1 --no-summaries
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/one/absent_q0030.fa -t 0.8 --format json --batch 1 --no-summaries

# --- 1,000-gene batch
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/batch.fa -t 0.8 --format json -o /work/rehearsal/mission/logs/batch-hits.json

# --- server
cold; capped /work/rehearsal/bin/bitsift serve -i /work/rehearsal/mission/wf/collection --listen 127.0.0.1:60933 --workers 2 &  # then bench/loadtest.py's client() threads, phases CLIENTS:SECONDS 1:30,8:30,32:30, the per-class genes, threshold 0.8, limit 20

# --- Python package
/root/.pyenv/versions/3.11.7/bin/python3 -m venv /work/rehearsal/mission/pyvenv
/work/rehearsal/mission/pyvenv/bin/python -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps /work/main/python
cold; capped /work/rehearsal/mission/pyvenv/bin/python /work/rehearsal/mission/genes/python_probe.py /work/rehearsal/mission/wf/collection /work/rehearsal/mission/genes/one/core_sp0000_q000.fa 0.8
cold; capped /work/rehearsal/mission/pyvenv/bin/python /work/rehearsal/mission/genes/python_probe.py /work/rehearsal/mission/wf/collection /work/rehearsal/mission/genes/one/absent_q0000.fa 0.8

# --- COBS on the largest shard
/work/main/.venv/bin/python /work/main/tests/peer/cobs_peer.py build --kind compact -o /work/rehearsal/mission/cobs/shard-0006.cobs_compact /work/rehearsal/mission/cobs/input-shard-0006
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/core_sp0000_q000.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0000_q000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0000_q000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0000_q001.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0000_q001.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/core_sp0000_q001.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0001_q001.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/core_sp0001_q001.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0001_q001.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/core_sp0002_q000.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0002_q000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0002_q000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0004_q000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0004_q000.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/core_sp0004_q000.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0007_q000.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/core_sp0007_q000.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0007_q000.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/core_sp0007_q001.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0007_q001.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0007_q001.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0013_q001.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0013_q001.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/core_sp0013_q001.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0023_q000.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/core_sp0023_q000.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0023_q000.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/core_sp0040_q000.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0040_q000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0040_q000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/sp0000_acc_00002.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/sp0000_acc_00002.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/sp0000_acc_00002.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/sp0000_acc_00016.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/sp0000_acc_00016.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/sp0000_acc_00016.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/sp0001_acc_00016.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/sp0001_acc_00016.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/sp0001_acc_00016.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/sp0002_acc_00016.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/sp0002_acc_00016.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/sp0002_acc_00016.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/sp0004_acc_00012.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/sp0004_acc_00012.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/sp0004_acc_00012.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/sp0007_acc_00001.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/sp0007_acc_00001.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/sp0007_acc_00001.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/sp0007_acc_00006.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/sp0007_acc_00006.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/sp0007_acc_00006.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/sp0013_acc_00001.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/sp0013_acc_00001.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/sp0013_acc_00001.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/sp0023_acc_00015.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/sp0023_acc_00015.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/sp0023_acc_00015.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/sp0040_acc_00004.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/sp0040_acc_00004.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/sp0040_acc_00004.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/mcr-1.1_1_KP347127.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/mcr-1.1_1_KP347127.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/mcr-1.1_1_KP347127.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/blaKPC-2_1_AY034847.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/blaKPC-2_1_AY034847.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/blaKPC-2_1_AY034847.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/blaCTX-M-14_1_AF252622.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/blaCTX-M-14_1_AF252622.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/blaCTX-M-14_1_AF252622.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/blaTEM-1B_1_AY458016.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/blaTEM-1B_1_AY458016.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/blaTEM-1B_1_AY458016.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/blaSHV-11_1_X98101.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/blaSHV-11_1_X98101.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/blaSHV-11_1_X98101.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/blaOXA-9_1_KQ089875.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/blaOXA-9_1_KQ089875.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/blaOXA-9_1_KQ089875.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/sul2_2_AY034138.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/sul2_2_AY034138.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/sul2_2_AY034138.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/sul3_2_AJ459418.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/sul3_2_AJ459418.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/sul3_2_AJ459418.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/tet_G__2_AF133140.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/tet_G__2_AF133140.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/tet_G__2_AF133140.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/aac_6__-Ib_1_M21682.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/aac_6__-Ib_1_M21682.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/aac_6__-Ib_1_M21682.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/absent_q0000.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0000.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0001.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0001.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/absent_q0001.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0003.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/absent_q0003.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0003.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/absent_q0004.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0004.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0004.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0006.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0006.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/absent_q0006.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0008.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/absent_q0008.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0008.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/absent_q0009.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0009.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0009.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0011.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0011.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/absent_q0011.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0012.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/absent_q0012.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0012.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/absent_q0014.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0014.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0014.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/universal_00.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/universal_00.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/universal_00.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/universal_01.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/universal_01.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/universal_01.fa -t 0.8 --format json --batch 1
cold; printf '{"op": "search", "seq": "%s", "threshold": 0.8}\n' "$(grep -v '>' /work/rehearsal/mission/genes/one/universal_02.fa | tr -d '\n')" | capped /work/main/.venv/bin/python /work/main/bench/cobs_worker.py /work/rehearsal/mission/cobs/shard-0006.cobs_compact
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/cobs/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/universal_02.fa -t 0.8 --format json --batch 1
cold; capped /work/rehearsal/bin/bitsift query -i /work/rehearsal/mission/wf/work/indexes/shard-0006.cobs_compact -f /work/rehearsal/mission/genes/one/universal_02.fa -t 0.8 --format json --batch 1
