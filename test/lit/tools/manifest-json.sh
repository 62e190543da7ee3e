#!/bin/sh
# Prints a manifest (.rcm) or fragment as JSON on stdout, for FileCheck.
# flatc only writes JSON into files, so convert inside a private temp dir.
# Usage: manifest-json.sh SCHEMA FILE
set -eu
schema=$1
file=$2
dir=$(mktemp -d "${TMPDIR:-/tmp}/rc-manifest-json.XXXXXX")
trap 'rm -rf "$dir"' EXIT
flatc --json --strict-json --raw-binary --defaults-json -o "$dir" "$schema" -- "$file"
cat "$dir"/*.json
