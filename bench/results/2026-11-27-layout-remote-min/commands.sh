#!/bin/sh
# commands of bench/remote_latency.py, in order
/root/.pyenv/versions/3.11.7/bin/python3 tests/remote/servers.py start --dir /work/rehearsal/min/wf --rtt-ms 0 --state /tmp/remote-latency-7ghvmfmg
