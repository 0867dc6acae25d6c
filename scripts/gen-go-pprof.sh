#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Regenerate tests/data/go_cpu.pb.gz, a CPU profile written by Go's runtime/pprof (the pprof
# reader's test input, committed so that tests do not depend on timing): builds and runs
# tests/fixtures/go/burn.go for 3 s. Usage: scripts/gen-go-pprof.sh [OUT]
set -eu
cd "$(dirname "$0")/.."
out=${1:-tests/data/go_cpu.pb.gz}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp tests/fixtures/go/burn.go "$tmp/"
(cd "$tmp" && GO111MODULE=off GOFLAGS= go build -o burn burn.go)
"$tmp/burn" "$out"
echo "gen-go-pprof: $out, $(wc -c <"$out") bytes"
