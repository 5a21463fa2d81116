#!/usr/bin/env bash
# The consumer test (`npm run test:consumer`, run by .ci/run): the package as a store gets it, added to an app that
# already exists. Builds and packs once and checks the tarball (contents, Markdown links). Then, for each host, two
# installs, as a store makes them (scripts/consumer-hosts/install.sh): first the host app alone, from its own
# package.json and its own lock; then the tarball added with a second, separate `npm install`, the command its docs
# give; both on npm 10 (in a copy of the host) and on npm 11. Each fails on ERESOLVE, on any peer warning, on an
# unclean `npm ls`, or on a second copy of `typeorm`, `@nestjs/core`, `@nestjs/common` or `@nestjs/typeorm`. The hosts:
#   latest   a Nest + TypeORM app with every package at npm's `latest` tag at the time of the run (unpinned: the next
#            major is caught when it lands), TypeScript's `latest` too, its TypeORM stack (`@nestjs/typeorm`,
#            `typeorm`, `pg`, and `better-sqlite3` at the range latest TypeORM accepts) in its own lock; then README
#            step 1 (NestJS 12, TypeORM 1 today), after which the TypeORM stack must be the versions the lock had;
#   lts      a NestJS 11 + TypeORM 0.3 app (the same stack, at older releases of the line), the repository's
#            TypeScript; then README step 1 for NestJS 11, with the same check;
#   vendure  a Vendure 3.7 app as @vendure/create makes it (scripts/consumer-hosts/vendure: package.json and lock);
#            then docs/vendure.md's `npm install nestjs-invoice-payments`;
#   medusa   the Medusa 2.21 app of hosts/medusa (package.json and lock); then docs/medusa.md's command.
# latest and lts (a scratch app written from the README only, scripts/consumer-app) then prove the package works:
# the operator signals' packages (`@nestjs/terminus`, `@opentelemetry/api`, the SDK and Prometheus exporter) are the
# host's own on `latest` (the app serves /health and reads the metrics) and absent on `lts` (the app must build and
# run without them); a strict type-check under `module: commonjs` and `module: nodenext` (and, in a program of its
# own with the DOM's types, a storefront page's import of the package's `storefront` entry), then the app runs as
# CommonJS on SQLite and on PostgreSQL (a fresh database each, dropped afterwards), with forRoot and with
# forRootAsync, and once more compiled as an ES module host: one PIX checkout -> pay -> webhook -> order port ->
# shipment -> tracking code at the sandbox, and the process must exit by itself after app.close(). Last, the
# sandbox's bin. vendure and medusa: the platform's entry of the package loads from the host, on the host's one copy
# of each shared package (scripts/consumer-hosts/load-from-host.js; their own tests start real servers).
# Usage: scripts/consumer-test.sh [latest] [lts] [vendure] [medusa]   (default: all four). KEEP_CONSUMER_DIR=1 keeps
# the scratch directory. DATABASE_URL's server (default postgres://postgres@127.0.0.1:5432) must let the user create
# databases.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
START=$(date +%s)
step() { echo "[consumer-test +$(($(date +%s) - START))s] $*"; }
STACKS=("$@")
[[ ${#STACKS[@]} -gt 0 ]] || STACKS=(latest lts vendure medusa)
PG_BASE=${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}
PG_SERVER=${PG_BASE%/*}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/invoice-payments-consumer.XXXXXX")
# Names of the databases made, one a line: a file, since each is made inside a command substitution (a subshell,
# where appending to a shell array would be lost).
DATABASES="$WORK/databases.txt"
cleanup() {
  if [[ -f "$DATABASES" ]]; then
    while read -r db; do psql "$PG_SERVER/postgres" -qc "DROP DATABASE IF EXISTS \"$db\"" >/dev/null 2>&1 || true; done <"$DATABASES"
  fi
  if [[ "${KEEP_CONSUMER_DIR:-}" == 1 ]]; then echo "scratch directory kept: $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

step "build and pack"
npm run build --silent
TARBALL=$(npm pack --pack-destination "$WORK" --silent | tail -n 1)
[[ -f "$WORK/$TARBALL" ]] || { echo "npm pack did not produce $TARBALL"; exit 1; }

step "tarball contents and links"
tar -tzf "$WORK/$TARBALL" | sed 's|^package/||' >"$WORK/files.txt"
node scripts/check-package-files.js "$WORK/files.txt" "$WORK/$TARBALL"

# better-sqlite3 compiles from source (about 75 s) when no prebuilt binary can be downloaded. Its build is kept per
# version and Node ABI and reused (seeded from the repository's own node_modules); every other install script runs.
CACHE=${CONSUMER_CACHE_DIR:-$ROOT/node_modules/.cache/consumer-test}
ABI=$(node -p process.versions.modules)
BINARY=build/Release/better_sqlite3.node
mkdir -p "$CACHE"
if [[ -f "node_modules/better-sqlite3/$BINARY" ]]; then
  REPO_SQLITE=$(node -p "require('./node_modules/better-sqlite3/package.json').version")
  cp -n "node_modules/better-sqlite3/$BINARY" "$CACHE/better-sqlite3-$REPO_SQLITE-abi$ABI.node" 2>/dev/null || true
fi
TS_VERSION=$(node -p "require('./node_modules/typescript/package.json').version")
SQLITE_OF_LATEST_TYPEORM=$(npm view typeorm@latest peerDependencies.better-sqlite3 2>/dev/null)
[[ -n "$SQLITE_OF_LATEST_TYPEORM" ]] || { echo "npm view typeorm@latest gave no better-sqlite3 peer range"; exit 1; }

# The host's own observability stack (docs/observability.md), installed on `latest` only.
SIGNAL_PACKAGES="@nestjs/terminus @opentelemetry/api @opentelemetry/sdk-node @opentelemetry/exporter-prometheus @opentelemetry/instrumentation-http"

# What a store types to add the package (the tarball stands for the package's name): README step 1 for a Nest app
# of that line (`readme=`, checked against the README by test/docs/quick-start.spec.ts), the install command of
# docs/vendure.md (the name alone) and of docs/medusa.md (`medusa=`, checked against it by the same test). A bare
# name takes npm's `latest` tag, saved as `^`; a name the host's package.json already lists keeps its range, but npm
# moves it to the newest release in that range (why README step 1 leaves out the TypeORM stack the app has).
added_packages() {
  local readme="" medusa=""
  case $1 in
    latest) readme="@nestjs/axios @nestjs/event-emitter class-validator class-transformer" ;;
    lts) readme="@nestjs/axios@^4 @nestjs/event-emitter@^3 class-validator@^0.14 class-transformer" ;;
    medusa) medusa="@nestjs/common @nestjs/core @nestjs/axios @nestjs/event-emitter @nestjs/typeorm typeorm pg class-validator class-transformer reflect-metadata rxjs" ;;
  esac
  echo "../$TARBALL $readme $medusa"
}

# The TypeORM stack a Nest + TypeORM store already has before the package: its Nest TypeORM module, TypeORM and the
# drivers the runs below use (PostgreSQL's and SQLite's). The lts app was made a while ago: its lock has older
# releases of its line (the first TypeORM 0.3 that accepts better-sqlite3 12), which README step 1 must keep.
TYPEORM_STACK_LATEST="@nestjs/typeorm typeorm pg better-sqlite3@$SQLITE_OF_LATEST_TYPEORM"
TYPEORM_STACK_LTS="@nestjs/typeorm@11.0.0 typeorm@0.3.26 pg@8.11.0 better-sqlite3@${REPO_SQLITE:-^12}"

# What the Nest host app has before the package: its Nest, HTTP platform and TypeORM stack (and, on `latest`, its
# observability stack).
host_own_packages() {
  if [[ $1 == vendure || $1 == medusa ]]; then
    return 0
  elif [[ $1 == latest ]]; then
    echo "@nestjs/common @nestjs/core @nestjs/platform-express reflect-metadata rxjs $TYPEORM_STACK_LATEST $SIGNAL_PACKAGES"
  else
    echo "@nestjs/common@^11 @nestjs/core@^11 @nestjs/platform-express@^11 reflect-metadata rxjs $TYPEORM_STACK_LTS"
  fi
}

# The versions of the host's TypeORM stack in its tree, one `name@version` a line: the same before and after the
# package is added (README: an app that already has them keeps them).
typeorm_stack_versions() {
  local app=$1 name
  for name in @nestjs/typeorm typeorm pg better-sqlite3; do
    echo "$name@$(node -p "require('$app/node_modules/$name/package.json').version")"
  done
}

# The host's package.json before the install: its development tools (TypeScript: npm's latest on the latest stack,
# the repository's on the lts one) and the one install script it allows.
host_package_json() {
  local stack=$1 typescript=$TS_VERSION
  [[ $stack == latest ]] && typescript="^$(npm view typescript@latest version)"
  cat <<EOF
{
  "name": "consumer-host-app-$stack",
  "private": true,
  "devDependencies": { "@types/node": "^20.19.0", "typescript": "$typescript" },
  "allowScripts": { "better-sqlite3": true }
}
EOF
}

# A fresh PostgreSQL database for one run, dropped when the script ends.
fresh_database() {
  local name="consumer_$1_$$_${RANDOM}"
  psql "$PG_SERVER/postgres" -qc "CREATE DATABASE \"$name\"" >/dev/null
  echo "$name" >>"$DATABASES"
  echo "$PG_SERVER/$name"
}

# A loopback port free now (the kernel's pick, released at once).
free_port() {
  node -e "const s = require('net').createServer().listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close(); })"
}

# Runs the host app once; it must pass and then exit by itself.
run_host() {
  local entry=$1 database=$2 options=$3 url=
  [[ $database == postgres ]] && url=$(fresh_database "$stack")
  # With the signals, the docs' SDK snippet is loaded first (--require for CommonJS, --import for an ES module), its
  # Prometheus exporter and its OTLP span export on free loopback ports.
  local preload=()
  if [[ $SIGNALS == 1 ]]; then
    if [[ $entry == */esm/* ]]; then preload=(--import "$APP/otel.mjs"); else preload=(--require "$APP/otel.cjs"); fi
    export OTEL_EXPORTER_PROMETHEUS_HOST=127.0.0.1 OTEL_EXPORTER_PROMETHEUS_PORT=$(free_port)
    export OTEL_EXPORTER_OTLP_TRACES_ENDPOINT="http://127.0.0.1:$(free_port)/v1/traces"
    export OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json OTEL_BSP_SCHEDULE_DELAY=200 OTEL_SERVICE_NAME=consumer-host-app
  fi
  set +e
  CONSUMER_DATABASE=$database CONSUMER_OPTIONS=$options CONSUMER_SIGNALS=$SIGNALS DATABASE_URL=$url timeout 90 node "${preload[@]}" "$entry"
  local status=$?
  set -e
  if [[ $status == 124 ]]; then
    echo "the host app did not exit by itself within 90 s after app.close(): something keeps the event loop alive"
    return 1
  fi
  [[ $status == 0 ]] || { echo "the host app failed (exit $status) on $database with $options"; return 1; }
}

# shellcheck source=consumer-hosts/install.sh
source scripts/consumer-hosts/install.sh
cp scripts/consumer-hosts/load-from-host.js "$WORK/load-from-host.js"

for stack in "${STACKS[@]}"; do
  APP="$WORK/$stack"
  mkdir -p "$APP"
  SIGNALS=0
  case $stack in
    latest | lts)
      cp -R scripts/consumer-app/src scripts/consumer-app/storefront scripts/consumer-app/tsconfig*.json "$APP/"
      if [[ $stack == latest ]]; then
        SIGNALS=1
        cp scripts/consumer-app/signals/signals.ts "$APP/src/"
        cp scripts/consumer-app/signals/otel.cjs scripts/consumer-app/signals/otel.mjs "$APP/"
      fi
      host_package_json "$stack" >"$APP/package.json"
      ;;
    vendure) cp scripts/consumer-hosts/vendure/package.json scripts/consumer-hosts/vendure/package-lock.json "$APP/" ;;
    medusa) cp hosts/medusa/package.json hosts/medusa/package-lock.json "$APP/" ;;
    *)
      echo "unknown host $stack (latest, lts, vendure or medusa)"
      exit 1
      ;;
  esac

  step "[$stack] the host app alone: its own packages, its own lock"
  # shellcheck disable=SC2046 # one package spec per word
  install_host_first "$APP" $(host_own_packages "$stack")
  if [[ $stack == latest || $stack == lts ]]; then
    typeorm_stack_versions "$APP" >"$WORK/$stack-typeorm-stack.txt"
    echo "  the host's own TypeORM stack: $(tr '\n' ' ' <"$WORK/$stack-typeorm-stack.txt")"
  fi
  # shellcheck disable=SC2046 # one package spec per word
  add_package "$APP" $(added_packages "$stack")

  # Both trees: npm 10's (add_package's copy of the host) and npm 11's.
  for tree in "$APP-npm10" "$APP"; do
    if [[ $stack == vendure || $stack == medusa ]]; then
      step "[$(basename "$tree")] the package's $stack entry loads from the host, on the host's copies"
      (cd "$tree" && node "$WORK/load-from-host.js" "nestjs-invoice-payments/$stack" \
        "$([[ $stack == vendure ]] && echo @vendure/core || echo @medusajs/framework)")
      continue
    fi
    if ! typeorm_stack_versions "$tree" | diff -u "$WORK/$stack-typeorm-stack.txt" -; then
      echo "adding the package changed the host's TypeORM stack in $(basename "$tree") (above): it must keep its own"
      exit 1
    fi
    for optional in qrcode $([[ $SIGNALS == 1 ]] || echo "@nestjs/terminus @opentelemetry/api"); do
      if [[ -d "$tree/node_modules/$optional" ]]; then
        echo "$optional was installed in $(basename "$tree"): it should be an optional peer, not a dependency"
        exit 1
      fi
    done
  done
  if [[ $stack == vendure || $stack == medusa ]]; then
    step "[$stack] passed"
    continue
  fi

  run_install_scripts "$APP"
  for peer in @nestjs/core @nestjs/common @nestjs/platform-express @nestjs/typeorm @nestjs/axios @nestjs/event-emitter \
    typeorm class-validator better-sqlite3 pg typescript $([[ $SIGNALS == 0 ]] || echo "$SIGNAL_PACKAGES"); do
    echo "  $peer $(node -p "require('$APP/node_modules/$peer/package.json').version")"
  done

  step "[$stack] type-check, strict: module commonjs and nodenext (server, storefront page); the server as an ES module"
  (cd "$APP" && npx tsc -p tsconfig.json && npx tsc -p tsconfig.nodenext.json)
  (cd "$APP" && npx tsc -p tsconfig.storefront.json && npx tsc -p tsconfig.storefront-nodenext.json)
  mkdir -p "$APP/esm"
  cp -R "$APP/src" "$APP/esm/src"
  echo '{ "type": "module" }' >"$APP/esm/package.json"
  cat >"$APP/esm/tsconfig.json" <<'EOF'
{
  "extends": "../tsconfig.json",
  "compilerOptions": { "module": "nodenext", "moduleResolution": "nodenext", "outDir": "./dist", "rootDir": "./src" },
  "include": ["src"]
}
EOF
  (cd "$APP" && npx tsc -p esm/tsconfig.json)

  step "[$stack] run the host app: PIX checkout -> pay -> webhook -> port -> shipment -> tracking code"
  for database in sqlite postgres; do
    for options in forRootAsync forRoot; do run_host "$APP/dist/main.js" "$database" "$options"; done
  done
  run_host "$APP/esm/dist/main.js" sqlite forRoot
  run_host "$APP/esm/dist/main.js" postgres forRootAsync

  step "[$stack] the sandbox bin: npx nestjs-invoice-payments-sandbox prints its URL and a sample token"
  LOG="$APP/sandbox-bin.log"
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
  step "[$stack] passed"
done

echo "npm's time per install (<host>-npm10: the host, then the package added, on npm 10; <host>: on npm 11):"
sed 's/^/  /' "$WORK/timings.txt"
step "passed (${STACKS[*]}) in $(($(date +%s) - START)) s"
