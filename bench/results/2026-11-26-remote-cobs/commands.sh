#!/bin/sh
# commands of bench/remote_latency.py, in order
/root/.pyenv/versions/3.11.7/bin/python3 tests/remote/servers.py start --dir /work/rehearsal/cobs65k --rtt-ms 0 --no-upload --state /tmp/remote-latency-1q1rnmib
/root/.pyenv/versions/3.11.7/bin/python3 tests/remote/servers.py rtt --rtt-ms 0 --state /tmp/remote-latency-1q1rnmib
target/bench/bitsift-05d1309 query -i http://127.0.0.1:38289/index.cobs_compact -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-05d1309 query -i http://127.0.0.1:38289/index.cobs_compact -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-05d1309 query -i http://127.0.0.1:38289/index.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-05d1309 query -i http://127.0.0.1:38289/index.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-05d1309 query -i http://127.0.0.1:38289/index.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-05d1309 query -i http://127.0.0.1:38289/index.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json
curl -s -o /dev/null http://127.0.0.1:38289/index.cobs_compact
/root/.pyenv/versions/3.11.7/bin/python3 tests/remote/servers.py rtt --rtt-ms 10 --state /tmp/remote-latency-1q1rnmib
target/bench/bitsift-05d1309 query -i http://127.0.0.1:38289/index.cobs_compact -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-05d1309 query -i http://127.0.0.1:38289/index.cobs_compact -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-05d1309 query -i http://127.0.0.1:38289/index.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-05d1309 query -i http://127.0.0.1:38289/index.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-05d1309 query -i http://127.0.0.1:38289/index.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-05d1309 query -i http://127.0.0.1:38289/index.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json
curl -s -o /dev/null http://127.0.0.1:38289/index.cobs_compact
/root/.pyenv/versions/3.11.7/bin/python3 tests/remote/servers.py rtt --rtt-ms 50 --state /tmp/remote-latency-1q1rnmib
target/bench/bitsift-05d1309 query -i http://127.0.0.1:38289/index.cobs_compact -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-05d1309 query -i http://127.0.0.1:38289/index.cobs_compact -f /work/rehearsal/mission/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/bench/bitsift-05d1309 query -i http://127.0.0.1:38289/index.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-05d1309 query -i http://127.0.0.1:38289/index.cobs_compact -f /work/rehearsal/mission/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/bench/bitsift-05d1309 query -i http://127.0.0.1:38289/index.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json
target/bench/bitsift-05d1309 query -i http://127.0.0.1:38289/index.cobs_compact -f /work/rehearsal/mission/genes/one/absent_q0010.fa -t 0.8 --format json
curl -s -o /dev/null http://127.0.0.1:38289/index.cobs_compact
/root/.pyenv/versions/3.11.7/bin/python3 tests/remote/servers.py stop --state /tmp/remote-latency-1q1rnmib
