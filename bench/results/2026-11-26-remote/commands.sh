#!/bin/sh
# commands of bench/remote_latency.py, in order
python3 tests/remote/servers.py start --dir REHEARSAL/wf --rtt-ms 0 --no-upload --state STATE
python3 tests/remote/servers.py rtt --rtt-ms 0 --state STATE
target/release/bitsift query -i http://127.0.0.1:46843/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/release/bitsift query -i http://127.0.0.1:46843/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/release/bitsift query -i http://127.0.0.1:46843/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/release/bitsift query -i http://127.0.0.1:46843/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/release/bitsift query -i http://127.0.0.1:46843/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/release/bitsift query -i http://127.0.0.1:46843/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/release/bitsift query -i http://127.0.0.1:46843/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json
target/release/bitsift query -i http://127.0.0.1:46843/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json
target/release/bitsift query -i http://127.0.0.1:46843/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json
target/release/bitsift query -i http://127.0.0.1:46843/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --remote-depth 1 --merge-gap 0 --read-max 4K
target/release/bitsift query -i http://127.0.0.1:46843/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json --remote-depth 1 --merge-gap 0 --read-max 4K
target/release/bitsift query -i http://127.0.0.1:46843/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json --remote-depth 1 --merge-gap 0 --read-max 4K
curl -s -o /dev/null http://127.0.0.1:46843/collection/.collection.lock
curl -s -o /dev/null http://127.0.0.1:46843/collection/collection.json
curl -s -o /dev/null http://127.0.0.1:46843/collection/sub-000013.cobs_compact
curl -s -o /dev/null http://127.0.0.1:46843/collection/sub-000013.cobs_compact.bitsift-checksums
curl -s -o /dev/null http://127.0.0.1:46843/collection/sub-000013.cobs_compact.bitsift-summaries
python3 tests/remote/servers.py rtt --rtt-ms 10 --state STATE
target/release/bitsift query -i http://127.0.0.1:46843/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/release/bitsift query -i http://127.0.0.1:46843/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/release/bitsift query -i http://127.0.0.1:46843/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/release/bitsift query -i http://127.0.0.1:46843/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/release/bitsift query -i http://127.0.0.1:46843/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/release/bitsift query -i http://127.0.0.1:46843/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/release/bitsift query -i http://127.0.0.1:46843/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json
target/release/bitsift query -i http://127.0.0.1:46843/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json
target/release/bitsift query -i http://127.0.0.1:46843/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json
target/release/bitsift query -i http://127.0.0.1:46843/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --remote-depth 1 --merge-gap 0 --read-max 4K
target/release/bitsift query -i http://127.0.0.1:46843/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json --remote-depth 1 --merge-gap 0 --read-max 4K
target/release/bitsift query -i http://127.0.0.1:46843/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json --remote-depth 1 --merge-gap 0 --read-max 4K
curl -s -o /dev/null http://127.0.0.1:46843/collection/.collection.lock
curl -s -o /dev/null http://127.0.0.1:46843/collection/collection.json
curl -s -o /dev/null http://127.0.0.1:46843/collection/sub-000013.cobs_compact
curl -s -o /dev/null http://127.0.0.1:46843/collection/sub-000013.cobs_compact.bitsift-checksums
curl -s -o /dev/null http://127.0.0.1:46843/collection/sub-000013.cobs_compact.bitsift-summaries
python3 tests/remote/servers.py rtt --rtt-ms 50 --state STATE
target/release/bitsift query -i http://127.0.0.1:46843/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/release/bitsift query -i http://127.0.0.1:46843/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/release/bitsift query -i http://127.0.0.1:46843/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json
target/release/bitsift query -i http://127.0.0.1:46843/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/release/bitsift query -i http://127.0.0.1:46843/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/release/bitsift query -i http://127.0.0.1:46843/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json
target/release/bitsift query -i http://127.0.0.1:46843/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json
target/release/bitsift query -i http://127.0.0.1:46843/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json
target/release/bitsift query -i http://127.0.0.1:46843/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json
target/release/bitsift query -i http://127.0.0.1:46843/collection -f REHEARSAL/genes/one/sp0013_acc_00012.fa -t 0.8 --format json --remote-depth 1 --merge-gap 0 --read-max 4K
target/release/bitsift query -i http://127.0.0.1:46843/collection -f REHEARSAL/genes/one/core_sp0013_q000.fa -t 0.8 --format json --remote-depth 1 --merge-gap 0 --read-max 4K
target/release/bitsift query -i http://127.0.0.1:46843/collection -f REHEARSAL/genes/one/absent_q0010.fa -t 0.8 --format json --remote-depth 1 --merge-gap 0 --read-max 4K
curl -s -o /dev/null http://127.0.0.1:46843/collection/.collection.lock
curl -s -o /dev/null http://127.0.0.1:46843/collection/collection.json
curl -s -o /dev/null http://127.0.0.1:46843/collection/sub-000013.cobs_compact
curl -s -o /dev/null http://127.0.0.1:46843/collection/sub-000013.cobs_compact.bitsift-checksums
curl -s -o /dev/null http://127.0.0.1:46843/collection/sub-000013.cobs_compact.bitsift-summaries
python3 tests/remote/servers.py stop --state STATE
