#!/bin/sh
# commands of bench/remote_latency.py, in order
/root/.pyenv/versions/3.11.7/bin/python3 tests/remote/servers.py start --dir REHEARSAL/wf --rtt-ms 0 --no-upload --state STATE
/root/.pyenv/versions/3.11.7/bin/python3 tests/remote/servers.py rtt --rtt-ms 0 --state STATE
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir STATE/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir STATE/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir STATE/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir STATE/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir STATE/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir STATE/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir STATE/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir STATE/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir STATE/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir STATE/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir STATE/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir STATE/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir STATE/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir STATE/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir STATE/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir STATE/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir STATE/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir STATE/cache-after
/root/.pyenv/versions/3.11.7/bin/python3 tests/remote/servers.py rtt --rtt-ms 10 --state STATE
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir STATE/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir STATE/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir STATE/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir STATE/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir STATE/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir STATE/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir STATE/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir STATE/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir STATE/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir STATE/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir STATE/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir STATE/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir STATE/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir STATE/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir STATE/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir STATE/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir STATE/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir STATE/cache-after
/root/.pyenv/versions/3.11.7/bin/python3 tests/remote/servers.py rtt --rtt-ms 50 --state STATE
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir STATE/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir STATE/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir STATE/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir STATE/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir STATE/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --cache-dir STATE/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir STATE/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir STATE/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir STATE/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir STATE/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir STATE/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json --cache-dir STATE/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir STATE/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir STATE/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir STATE/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir STATE/cache-after
target/bench/bitsift-684a154 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir STATE/cache-before
target/bench/bitsift-d3532d4 query -i http://127.0.0.1:44993/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json --cache-dir STATE/cache-after
/root/.pyenv/versions/3.11.7/bin/python3 tests/remote/servers.py stop --state STATE
