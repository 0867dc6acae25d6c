#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Install the npm packages that validate cpuprof's JSON output, pinned, into build/node
# (gitignored): speedscope, for the file-format-schema.json it ships, and ajv, the validator.
# Node.js and npm come from Debian when they are missing. Idempotent: prints nothing and touches
# nothing when the pinned versions are present.
set -eu

cd "$(dirname "$0")/.."
DIR=${CPUPROF_NODE_DIR:-build/node}
PKGS="speedscope@1.25.0 ajv@8.17.1"

have_all() {
	command -v node >/dev/null 2>&1 || return 1
	for p in $PKGS; do
		name=${p%@*}
		want=${p##*@}
		got=$(node -e 'try { console.log(require(process.argv[1]).version) } catch (e) {}' \
			"$PWD/$DIR/node_modules/$name/package.json" 2>/dev/null)
		[ "$got" = "$want" ] || return 1
	done
}

have_all && exit 0

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "cpuprof: node and npm are missing; run 'sudo $0' or install nodejs and npm" >&2
		exit 1
	fi
	echo "cpuprof: installing nodejs npm" >&2
	export DEBIAN_FRONTEND=noninteractive
	if ! apt-get install -y -q --no-install-recommends nodejs npm >/dev/null 2>&1; then
		apt-get update -q >/dev/null
		apt-get install -y -q --no-install-recommends nodejs npm >/dev/null
	fi
fi

echo "cpuprof: installing $PKGS into $DIR" >&2
mkdir -p "$DIR"
# --ignore-scripts: nothing of these packages has to run to read a schema
npm install --prefix "$DIR" --no-audit --no-fund --ignore-scripts --loglevel=error \
	$PKGS >/dev/null
have_all || {
	echo "cpuprof: npm did not install $PKGS into $DIR" >&2
	exit 1
}
