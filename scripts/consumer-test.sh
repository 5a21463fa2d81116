#!/usr/bin/env bash
# The consumer test (`npm run test:consumer`, run by .ci/run): the package as a store gets it.
# Builds, packs, installs the tarball into a scratch NestJS 11 host app made on the fly (scripts/consumer-app, written
# from the README only), type-checks it in strict mode under `module: commonjs` and `module: nodenext`, runs one PIX
# checkout -> payment in the sandbox -> webhook -> order port -> shipment event -> tracking code at the sandbox on
# SQLite, and checks that the process exits by itself after app.close(). Also: the tarball's contents, the links of
# its Markdown files, and the sandbox's bin.
# KEEP_CONSUMER_DIR=1 keeps the scratch directory for a look afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
START=$(date +%s)
step() { echo "[consumer-test +$(($(date +%s) - START))s] $*"; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/invoice-payments-consumer.XXXXXX")
if [[ "${KEEP_CONSUMER_DIR:-}" == 1 ]]; then
  echo "scratch directory kept: $WORK"
else
  trap 'rm -rf "$WORK"' EXIT
fi

step "build and pack"
npm run build --silent
TARBALL=$(npm pack --pack-destination "$WORK" --silent | tail -n 1)
[[ -f "$WORK/$TARBALL" ]] || { echo "npm pack did not produce $TARBALL"; exit 1; }

step "tarball contents and links"
tar -tzf "$WORK/$TARBALL" | sed 's|^package/||' >"$WORK/files.txt"
node scripts/check-package-files.js "$WORK/files.txt" "$WORK/$TARBALL"

step "scratch host app"
APP="$WORK/host-app"
mkdir -p "$APP"
cp -R scripts/consumer-app/. "$APP/"
# The host's own dependencies: the ranges a store on the Nest 11 line installs today. better-sqlite3 is pinned to
# the repository's version so its native build can be reused (it compiles from source when no prebuilt binary can
# be downloaded, which takes minutes).
SQLITE_VERSION=$(node -p "require('./node_modules/better-sqlite3/package.json').version")
TS_VERSION=$(node -p "require('./node_modules/typescript/package.json').version")
cat >"$APP/package.json" <<EOF
{
  "name": "consumer-host-app",
  "private": true,
  "dependencies": {
    "nestjs-invoice-payments": "file:../$TARBALL",
    "@nestjs/axios": "^4.0.0",
    "@nestjs/common": "^11.0.0",
    "@nestjs/core": "^11.0.0",
    "@nestjs/event-emitter": "^3.0.0",
    "@nestjs/platform-express": "^11.0.0",
    "@nestjs/typeorm": "^11.0.0",
    "better-sqlite3": "$SQLITE_VERSION",
    "class-transformer": "^0.5.1",
    "class-validator": "^0.14.0",
    "reflect-metadata": "^0.2.0",
    "rxjs": "^7.8.0",
    "typeorm": "^0.3.20"
  },
  "devDependencies": {
    "@types/node": "^20.0.0",
    "typescript": "$TS_VERSION"
  }
}
EOF

step "npm install (the tarball and the host's dependencies)"
(cd "$APP" && npm install --prefer-offline --no-audit --no-fund --ignore-scripts --loglevel=error)
BINARY=build/Release/better_sqlite3.node
if [[ -f "node_modules/better-sqlite3/$BINARY" ]]; then
  mkdir -p "$APP/node_modules/better-sqlite3/build/Release"
  cp "node_modules/better-sqlite3/$BINARY" "$APP/node_modules/better-sqlite3/$BINARY"
else
  (cd "$APP" && npm rebuild better-sqlite3 --loglevel=error)
fi
if [[ -d "$APP/node_modules/qrcode" ]]; then
  echo "qrcode was installed: it should be an optional peer, not a dependency"
  exit 1
fi
for peer in @nestjs/common @nestjs/core @nestjs/typeorm typeorm; do
  echo "  $peer $(node -p "require('$APP/node_modules/$peer/package.json').version")"
done

step "type-check, strict: module commonjs (node10 resolution, typesVersions) and module nodenext (exports)"
(cd "$APP" && npx tsc -p tsconfig.json && npx tsc -p tsconfig.nodenext.json)

step "run the host app: PIX checkout -> pay -> webhook -> port -> shipment -> tracking code"
set +e
(cd "$APP" && timeout 90 node dist/main.js)
STATUS=$?
set -e
if [[ $STATUS == 124 ]]; then
  echo "the host app did not exit by itself within 90 s after app.close(): something keeps the event loop alive"
  exit 1
fi
[[ $STATUS == 0 ]] || { echo "the host app failed (exit $STATUS)"; exit 1; }

step "the sandbox bin: npx nestjs-invoice-payments-sandbox prints its URL and a sample token"
LOG="$WORK/sandbox-bin.log"
# The link npx runs; started directly so that its process id is the sandbox's own.
PORT=0 "$APP/node_modules/.bin/nestjs-invoice-payments-sandbox" >"$LOG" 2>&1 &
BIN_PID=$!
for _ in $(seq 1 100); do
  grep -q 'Sample token' "$LOG" && break
  sleep 0.1
done
kill "$BIN_PID" 2>/dev/null || true
wait "$BIN_PID" 2>/dev/null || true
cat "$LOG"
grep -Eq 'listening on http://127\.0\.0\.1:[0-9]+' "$LOG" && grep -q 'Sample token: ' "$LOG" || {
  echo "the sandbox bin did not print its URL and a sample token"
  exit 1
}

step "passed in $(($(date +%s) - START)) s"
