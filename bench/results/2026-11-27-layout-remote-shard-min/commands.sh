#!/bin/sh
# commands of bench/remote_latency.py, in order
/root/.pyenv/versions/3.11.7/bin/python3 tests/remote/servers.py start --dir /work/rehearsal/min/wf/work/indexes --rtt-ms 0 --state /tmp/remote-latency-bf1h9_vi
/root/.pyenv/versions/3.11.7/bin/python3 tests/remote/servers.py rtt --rtt-ms 0 --state /tmp/remote-latency-bf1h9_vi
/work/rehearsal/bin2/bitsift query -i http://127.0.0.1:59925/shard-0004.cobs_compact -f /work/rehearsal/min/genes/one/core_sp0000_q000.fa -t 0.8 --format json
/work/rehearsal/bin2/bitsift query -i http://127.0.0.1:59925/shard-0004.cobs_compact -f /work/rehearsal/min/genes/one/blaKPC-2_1_AY034847.fa -t 0.8 --format json
/work/rehearsal/bin2/bitsift query -i http://127.0.0.1:59925/shard-0004.cobs_compact -f /work/rehearsal/min/genes/one/universal_00.fa -t 0.8 --format json
/work/rehearsal/bin2/bitsift query -i http://127.0.0.1:59925/shard-0004.cobs_compact -f /work/rehearsal/min/genes/one/absent_q0000.fa -t 0.8 --format json
/work/rehearsal/bin2/bitsift query -i s3://bitsift/shard-0004.cobs_compact -f /work/rehearsal/min/genes/one/core_sp0000_q000.fa -t 0.8 --format json
/work/rehearsal/bin2/bitsift query -i s3://bitsift/shard-0004.cobs_compact -f /work/rehearsal/min/genes/one/blaKPC-2_1_AY034847.fa -t 0.8 --format json
/root/.pyenv/versions/3.11.7/bin/python3 tests/remote/servers.py stop --state /tmp/remote-latency-bf1h9_vi
