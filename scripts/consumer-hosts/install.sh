# The consumer test's two installs, as a store makes them (sourced by scripts/consumer-test.sh): first the host app
# alone, from its own package.json and its own lock; then the packed package added to it with a second, separate
# `npm install`, the command the docs give. Both are made on npm 10 (in a copy of the host) and on npm 11 (the
# machine's); either fails the test on ERESOLVE, on any peer warning, on an unclean `npm ls`, or on a second copy of a
# package the module shares with its host (check-copies.js).
# The Vendure host's lock (vendure/package-lock.json) is committed, as a store's app has one: what fails is what npm
# picks for the package's peers, which no host lock pins; and a fixed tree makes a failure the package's, not that of
# a Vendure dependency released overnight (the latest host follows the registry). For a newer Vendure: the exact
# versions in vendure/package.json (as `npx @vendure/create` writes them), then `npm install --package-lock-only`.
# Needs: WORK (the scratch directory, where check-copies.js is copied), step().

# What npm prints when peer ranges do not fit together (an error or a warning; EBADENGINE is neither).
PEER_PROBLEMS='ERESOLVE|peer dep|Conflicting peer|[Cc]ould not resolve'
# npm 10, fetched once by npx (the machine's npm is 11).
NPM10=(npx -y npm@10)
NPM_FLAGS=(--prefer-offline --no-audit --no-fund --ignore-scripts)
# The packages the module shares with its host, as `npm query` selects them (check-copies.js wants one of each).
SHARED_QUERY='#typeorm, #@nestjs/core, #@nestjs/common, #@nestjs/typeorm'
cp "$(dirname "${BASH_SOURCE[0]}")/check-copies.js" "$WORK/check-copies.js"

# Runs one npm command in a host, its output in a log; prints the log and fails if it failed or warned about peers.
# `timed` records how long it took, for the summary at the end.
npm_in_host() {
  local app=$1 label=$2 log=$1/npm-$2.log
  shift 2
  local start=$SECONDS
  (cd "$app" && "$@" >"$log" 2>&1) || {
    cat "$log"
    echo "$label failed: $*"
    return 1
  }
  echo "$(basename "$app") $label $((SECONDS - start)) s" >>"$WORK/timings.txt"
  grep -Ev 'Unknown user config|EBADENGINE|^npm warn EBADENGINE' "$log" | grep -v '^$' || true
  if grep -Eq "$PEER_PROBLEMS" "$log"; then
    echo "$label warned about peer dependencies (above): the ranges do not fit together"
    return 1
  fi
}

# `npm ls --all` must be clean (no missing, invalid or extraneous package); on failure, its problems without the tree.
npm_ls_clean() {
  local app=$1
  shift
  (cd "$app" && "$@" >"$app/npm-ls.txt" 2>&1) || {
    grep -Ev '^[│├└ ]' "$app/npm-ls.txt"
    echo "npm ls is not clean: $*"
    return 1
  }
}

# The host alone, before the package: `npm ci` from its committed lock, or, for a host whose package.json the test
# writes, `npm install` of its own packages (which makes its lock).
install_host_first() {
  local app=$1
  shift
  if [[ -f "$app/package-lock.json" ]]; then
    npm_in_host "$app" "host-ci" npm ci "${NPM_FLAGS[@]}"
  else
    npm_in_host "$app" "host-install" npm install "${NPM_FLAGS[@]}" "$@"
  fi
}

# The package added to the installed host with the docs' command (its arguments: the tarball first, standing for the
# package's name), on npm 10 and on npm 11, each a real install. npm 10 gets a copy of the host, `<app>-npm10`: the
# host's package.json and lock (as the first install left them), installed by npm 10 (`npm ci`), then the command.
# npm 11 runs the command in the host itself. Each tree is then checked on disk: `npm ls --all`, one copy of each
# shared package (`npm query`).
add_package() {
  local app=$1 app10=$1-npm10
  shift
  mkdir -p "$app10"
  cp "$app/package.json" "$app/package-lock.json" "$app10/"

  step "[$(basename "$app")] npm 10 ($("${NPM10[@]}" --version)): the host from its lock, then npm install $*"
  npm_in_host "$app10" "host-ci" "${NPM10[@]}" ci "${NPM_FLAGS[@]}"
  npm_in_host "$app10" "add" "${NPM10[@]}" install "${NPM_FLAGS[@]}" "$@"
  npm_ls_clean "$app10" "${NPM10[@]}" ls --all
  (cd "$app10" && "${NPM10[@]}" query "$SHARED_QUERY") | node "$WORK/check-copies.js" -

  step "[$(basename "$app")] npm $(npm --version): npm install $*"
  npm_in_host "$app" "add" npm install "${NPM_FLAGS[@]}" "$@"
  npm_ls_clean "$app" npm ls --all
  (cd "$app" && npm query "$SHARED_QUERY") | node "$WORK/check-copies.js" -
}

# The install scripts of the host's tree, run after the installs (which ignore them): each package that has one gets
# it (`npm rebuild`), except that better-sqlite3's native build comes from the cache when its version was built before
# (it compiles from source, over a minute, when no prebuilt binary can be downloaded).
# Needs: CACHE, ABI, BINARY.
run_install_scripts() {
  local app=$1 scripted
  scripted=$(cd "$app" && npm query ':attr(scripts, [preinstall]), :attr(scripts, [install]), :attr(scripts, [postinstall])' |
    node -e 'for (const p of JSON.parse(require("fs").readFileSync(0, "utf8"))) console.log(`${p.name}@${p.version}`)' | sort -u)
  for pkg in $scripted; do
    local name=${pkg%@*} version=${pkg##*@}
    local cached="$CACHE/$name-$version-abi$ABI.node"
    if [[ $name == better-sqlite3 && -f $cached ]]; then
      echo "  $pkg: install script replaced by the build cached for Node ABI $ABI"
      mkdir -p "$app/node_modules/better-sqlite3/build/Release"
      cp "$cached" "$app/node_modules/better-sqlite3/$BINARY"
    else
      echo "  $pkg: running its install script"
      (cd "$app" && npm rebuild "$name" --loglevel=error)
      if [[ $name == better-sqlite3 ]]; then cp "$app/node_modules/better-sqlite3/$BINARY" "$cached"; fi
    fi
  done
}
