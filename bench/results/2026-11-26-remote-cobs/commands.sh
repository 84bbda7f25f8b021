#!/bin/sh
# commands of bench/remote_latency.py, in order
/root/.pyenv/versions/3.11.7/bin/python3 tests/remote/servers.py start --dir /work/rehearsal/cobs65k --rtt-ms 0 --no-upload --state /tmp/remote-latency-0008emsq
/root/.pyenv/versions/3.11.7/bin/python3 tests/remote/servers.py rtt --rtt-ms 0 --state /tmp/remote-latency-0008emsq
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-0008emsq/cache-bitsift
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-0008emsq/cache-bitsift
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-0008emsq/cache-bitsift
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-0008emsq/cache-bitsift
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-0008emsq/cache-bitsift
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-0008emsq/cache-bitsift
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-0008emsq/cache-bitsift
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-0008emsq/cache-bitsift
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-0008emsq/cache-bitsift
curl -s -o /dev/null http://127.0.0.1:59443/index.cobs_compact
/root/.pyenv/versions/3.11.7/bin/python3 tests/remote/servers.py rtt --rtt-ms 10 --state /tmp/remote-latency-0008emsq
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-0008emsq/cache-bitsift
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-0008emsq/cache-bitsift
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-0008emsq/cache-bitsift
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-0008emsq/cache-bitsift
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-0008emsq/cache-bitsift
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-0008emsq/cache-bitsift
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-0008emsq/cache-bitsift
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-0008emsq/cache-bitsift
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-0008emsq/cache-bitsift
curl -s -o /dev/null http://127.0.0.1:59443/index.cobs_compact
/root/.pyenv/versions/3.11.7/bin/python3 tests/remote/servers.py rtt --rtt-ms 50 --state /tmp/remote-latency-0008emsq
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-0008emsq/cache-bitsift
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-0008emsq/cache-bitsift
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-0008emsq/cache-bitsift
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-0008emsq/cache-bitsift
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-0008emsq/cache-bitsift
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-0008emsq/cache-bitsift
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-0008emsq/cache-bitsift
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-0008emsq/cache-bitsift
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:59443/index.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-0008emsq/cache-bitsift
curl -s -o /dev/null http://127.0.0.1:59443/index.cobs_compact
/root/.pyenv/versions/3.11.7/bin/python3 tests/remote/servers.py stop --state /tmp/remote-latency-0008emsq
