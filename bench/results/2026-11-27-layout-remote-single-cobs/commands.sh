#!/bin/sh
# commands of bench/remote_latency.py, in order
python3 tests/remote/servers.py start --dir cobs/wf --rtt-ms 0 --no-upload --state STATE
python3 tests/remote/servers.py rtt --rtt-ms 0 --state STATE
bin2/bitsift query -i http://127.0.0.1:38365/collection -f min/genes/one/core_sp0000_q000.fa -t 0.8 --format json --remote-ranges 1 --merge-gap 64K
bin2/bitsift query -i http://127.0.0.1:38365/collection -f min/genes/one/blaKPC-2_1_AY034847.fa -t 0.8 --format json --remote-ranges 1 --merge-gap 64K
bin2/bitsift query -i http://127.0.0.1:38365/collection -f min/genes/one/universal_00.fa -t 0.8 --format json --remote-ranges 1 --merge-gap 64K
bin2/bitsift query -i http://127.0.0.1:38365/collection -f min/genes/one/absent_q0000.fa -t 0.8 --format json --remote-ranges 1 --merge-gap 64K
python3 tests/remote/servers.py stop --state STATE
