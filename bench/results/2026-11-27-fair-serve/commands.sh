#!/bin/sh
# servers started by bench/fair_serve.py
$BITSIFT_BEFORE serve -q -i $INDEX --listen 127.0.0.1:$PORT
$BITSIFT_AFTER serve -q -i $INDEX --listen 127.0.0.1:$PORT --answer-cache-size 0
