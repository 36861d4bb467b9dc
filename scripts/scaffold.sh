#!/usr/bin/env bash
# scaffold.sh <dir> <name> <refs...>: creates package.json + tsconfig.json for a workspace package.
set -e
dir=$1; name=$2; shift 2
mkdir -p "$dir/src"
refs=""
for r in "$@"; do refs="$refs{ \"path\": \"../../libs/$r\" },"; done
refs="[${refs%,}]"
[ -f "$dir/package.json" ] || cat > "$dir/package.json" <<JSON
{
  "name": "$name",
  "version": "0.1.0",
  "private": true,
  "type": "module",
  "main": "./dist/index.js",
  "types": "./dist/index.d.ts",
  "exports": { ".": { "types": "./dist/index.d.ts", "default": "./dist/index.js" } },
  "scripts": { "build": "tsc -b", "lint": "tsc -b" },
  "dependencies": {}
}
JSON
cat > "$dir/tsconfig.json" <<JSON
{
  "extends": "../../tsconfig.base.json",
  "compilerOptions": { "rootDir": "src", "outDir": "dist", "tsBuildInfoFile": "dist/.tsbuildinfo" },
  "include": ["src"],
  "exclude": ["src/**/*.test.ts"],
  "references": $refs
}
JSON
