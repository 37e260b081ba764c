#!/usr/bin/env bash
# The README's test command with the calendar of every Node process moved by $1 (1d, 30d, 365d, …): the
# suite as it will run on a later day, redis-server and Chromium on the real time. Further arguments go to
# vitest (a file, -t …). See test/helpers/shift-date.mjs.
set -euo pipefail
cd "$(dirname "$0")/.."
export TEST_DATE_SHIFT="${1:?usage: scripts/test-shifted.sh <shift: 1d, 30d, 365d> [vitest arguments]}"
shift
export NODE_OPTIONS="${NODE_OPTIONS:+$NODE_OPTIONS }--import=$PWD/test/helpers/shift-date.mjs"
exec npm test -- "$@"
