#!/bin/sh
# commands of bench/remote_latency.py, in order
python3 tests/remote/servers.py start --dir $REHEARSAL/atb-nocat --rtt-ms 0 --no-upload --state $TMP
python3 tests/remote/servers.py rtt --rtt-ms 50 --state $TMP
python3 tests/remote/servers.py rate --mbit 100 --state $TMP
$BITSIFT_AFTER query -i http://127.0.0.1:41707/atb.cobs_compact -f $TMP -t 0.8 --format json
$BITSIFT_AFTER query -i http://127.0.0.1:41707/atb.cobs_compact -f $TMP -t 0.8 --format json
python3 tests/remote/servers.py rate --mbit 0 --state $TMP
$BITSIFT_AFTER query -i http://127.0.0.1:41707/atb.cobs_compact -f $TMP -t 0.8 --format json
$BITSIFT_AFTER query -i http://127.0.0.1:41707/atb.cobs_compact -f $TMP -t 0.8 --format json
python3 tests/remote/servers.py stop --state $TMP
