#!/bin/sh
# commands of bench/remote_latency.py, in order
python3 tests/remote/servers.py start --dir REHEARSAL/min/wf/work/indexes --rtt-ms 0 --state STATE
python3 tests/remote/servers.py rtt --rtt-ms 0 --state STATE
REHEARSAL/bin2/bitsift query -i http://127.0.0.1:59925/shard-0004.cobs_compact -f REHEARSAL/min/genes/one/core_sp0000_q000.fa -t 0.8 --format json
REHEARSAL/bin2/bitsift query -i http://127.0.0.1:59925/shard-0004.cobs_compact -f REHEARSAL/min/genes/one/blaKPC-2_1_AY034847.fa -t 0.8 --format json
REHEARSAL/bin2/bitsift query -i http://127.0.0.1:59925/shard-0004.cobs_compact -f REHEARSAL/min/genes/one/universal_00.fa -t 0.8 --format json
REHEARSAL/bin2/bitsift query -i http://127.0.0.1:59925/shard-0004.cobs_compact -f REHEARSAL/min/genes/one/absent_q0000.fa -t 0.8 --format json
REHEARSAL/bin2/bitsift query -i s3://bitsift/shard-0004.cobs_compact -f REHEARSAL/min/genes/one/core_sp0000_q000.fa -t 0.8 --format json
REHEARSAL/bin2/bitsift query -i s3://bitsift/shard-0004.cobs_compact -f REHEARSAL/min/genes/one/blaKPC-2_1_AY034847.fa -t 0.8 --format json
python3 tests/remote/servers.py stop --state STATE
