#!/bin/sh
# commands of bench/remote_latency.py, in order
/root/.pyenv/versions/3.11.7/bin/python3 tests/remote/servers.py start --dir /work/rehearsal/mission/wf --rtt-ms 0 --no-upload --state /tmp/remote-latency-q2x4_h4m
/root/.pyenv/versions/3.11.7/bin/python3 tests/remote/servers.py rtt --rtt-ms 0 --state /tmp/remote-latency-q2x4_h4m
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-after
/root/.pyenv/versions/3.11.7/bin/python3 tests/remote/servers.py rtt --rtt-ms 10 --state /tmp/remote-latency-q2x4_h4m
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-after
/root/.pyenv/versions/3.11.7/bin/python3 tests/remote/servers.py rtt --rtt-ms 50 --state /tmp/remote-latency-q2x4_h4m
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir /tmp/remote-latency-q2x4_h4m/cache-after
/root/.pyenv/versions/3.11.7/bin/python3 tests/remote/servers.py stop --state /tmp/remote-latency-q2x4_h4m
