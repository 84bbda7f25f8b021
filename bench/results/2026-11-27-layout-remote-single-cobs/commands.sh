#!/bin/sh
# commands of bench/remote_latency.py, in order
/root/.pyenv/versions/3.11.7/bin/python3 tests/remote/servers.py start --dir /work/rehearsal/cobs/wf --rtt-ms 0 --no-upload --state /tmp/remote-latency-j3y6lb1r
/root/.pyenv/versions/3.11.7/bin/python3 tests/remote/servers.py rtt --rtt-ms 0 --state /tmp/remote-latency-j3y6lb1r
/work/rehearsal/bin2/bitsift query -i http://127.0.0.1:38365/collection -f /work/rehearsal/min/genes/one/core_sp0000_q000.fa -t 0.8 --format json --remote-ranges 1 --merge-gap 64K
/work/rehearsal/bin2/bitsift query -i http://127.0.0.1:38365/collection -f /work/rehearsal/min/genes/one/blaKPC-2_1_AY034847.fa -t 0.8 --format json --remote-ranges 1 --merge-gap 64K
/work/rehearsal/bin2/bitsift query -i http://127.0.0.1:38365/collection -f /work/rehearsal/min/genes/one/universal_00.fa -t 0.8 --format json --remote-ranges 1 --merge-gap 64K
/work/rehearsal/bin2/bitsift query -i http://127.0.0.1:38365/collection -f /work/rehearsal/min/genes/one/absent_q0000.fa -t 0.8 --format json --remote-ranges 1 --merge-gap 64K
/root/.pyenv/versions/3.11.7/bin/python3 tests/remote/servers.py stop --state /tmp/remote-latency-j3y6lb1r
