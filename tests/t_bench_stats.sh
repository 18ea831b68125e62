#!/bin/sh
# bench/stats.py's exact sign test and median intervals against published
# values, and bench/ab.py's comparison of two runtimes end to end (no
# timing is judged: benchmarks are never tests).
exec python3 "$TOP/tests/bench_stats.py"
