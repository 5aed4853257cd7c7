#!/bin/sh
# Runs the example with Python 3 when the node has it, else with Node, which every Tender
# node has (the agent runs on it). Both write the same output for the same SEED.
set -eu
cd "${TENDER_WORKSPACE:-.}"
mkdir -p out
if command -v python3 >/dev/null 2>&1; then
  exec python3 hello.py
fi
exec node hello.mjs
