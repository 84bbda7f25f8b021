#!/bin/sh
# bench/serve_load.py --index $INDEX --genes $GENES --bitsift $BITSIFT --clients 200 --heavy 20 --heavy-parallel 4 --seconds 30 --out $OUT
$BITSIFT serve -q -i $INDEX --listen 127.0.0.1:$PORT
